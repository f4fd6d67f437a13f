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

{{/* Service identity of party $party: its own private key, every public key, and mTLS files. */}}
{{- define "mp.identityEnv" -}}
- name: MP_SERVICE_KEY_FILE
  value: /etc/mp/service-key/service.key
- name: MP_SERVICE_PEER_KEYS_DIR
  value: /etc/mp/peer-keys
{{- if .root.Values.grpcTls.secretName }}
- name: MP_GRPC_TLS_CA_FILE
  value: /etc/mp/grpc-tls/ca.crt
- name: MP_GRPC_TLS_CERT_FILE
  value: /etc/mp/grpc-tls/tls.crt
- name: MP_GRPC_TLS_KEY_FILE
  value: /etc/mp/grpc-tls/tls.key
{{- end }}
{{- end -}}
{{- define "mp.identityMounts" -}}
- { name: service-key, mountPath: /etc/mp/service-key, readOnly: true }
- { name: peer-keys, mountPath: /etc/mp/peer-keys, readOnly: true }
{{- if .root.Values.grpcTls.secretName }}
- { name: grpc-tls, mountPath: /etc/mp/grpc-tls, readOnly: true }
{{- end }}
{{- end -}}
{{- define "mp.identityVolumes" -}}
- name: service-key
  secret:
    secretName: {{ .root.Values.serviceKeys.secretName }}
    items: [{ key: {{ .party }}.key, path: service.key }]
- name: peer-keys
  secret:
    secretName: {{ .root.Values.serviceKeys.secretName }}
    items:
      {{- range $p := list "gateway" "identity" "projects" "monitoring-data" "webhooks" "operator" }}
      - { key: {{ $p }}.pub, path: {{ $p }}.pub }
      {{- end }}
{{- if .root.Values.grpcTls.secretName }}
- name: grpc-tls
  secret:
    secretName: {{ .root.Values.grpcTls.secretName }}
    items: [{ key: ca.crt, path: ca.crt }, { key: {{ .party }}.crt, path: tls.crt }, { key: {{ .party }}.key, path: tls.key }]
{{- end }}
{{- end -}}
