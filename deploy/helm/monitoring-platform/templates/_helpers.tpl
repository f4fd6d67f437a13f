{{- define "mp.fullname" -}}{{ .Release.Name }}-mp{{- end -}}
{{- define "mp.infraEnv" -}}
- name: MP_DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ .Values.infrastructure.databaseUrlSecret.name }}, key: {{ .Values.infrastructure.databaseUrlSecret.key }} } }
- name: MP_NATS_URL
  value: {{ .Values.infrastructure.natsUrl | quote }}
- name: MP_REDIS_URL
  value: {{ .Values.infrastructure.redisUrl | quote }}
- name: MP_NATS_STREAM
  value: {{ .Values.infrastructure.natsStream | quote }}
- name: MP_NATS_SUBJECT_PREFIX
  value: {{ .Values.infrastructure.natsSubjectPrefix | quote }}
- name: MP_SECRETS_KEY
  valueFrom: { secretKeyRef: { name: {{ .Values.infrastructure.secretsKeySecret.name }}, key: {{ .Values.infrastructure.secretsKeySecret.key }} } }
- name: MP_GRPC_HOST
  value: "0.0.0.0"
{{- end -}}
