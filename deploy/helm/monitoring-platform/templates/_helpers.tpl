{{/* The chart's name, overridable. */}}
{{- define "mp.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The prefix of every resource name: <release>-<name>, or the release name alone when it already
holds the name (so release "monitoring-platform" gives monitoring-platform-gateway, not
monitoring-platform-monitoring-platform-gateway). 46 characters leave room for the longest
component suffix ("-monitoring-data", "-gateway-internal") within a Service's 63.
*/}}
{{- define "mp.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 46 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 46 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 46 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of a component's resources: (dict "root" $ "component" "gateway"). */}}
{{- define "mp.componentName" -}}
{{- printf "%s-%s" (include "mp.fullname" .root) .component -}}
{{- end -}}

{{- define "mp.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* What selects a component's pods: the chart, the release and the component, so two releases in one namespace never select each other's pods. */}}
{{- define "mp.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mp.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Every pod of the release (the NetworkPolicies' default deny). */}}
{{- define "mp.releaseSelectorLabels" -}}
app.kubernetes.io/name: {{ include "mp.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "mp.labels" -}}
helm.sh/chart: {{ include "mp.chart" .root }}
{{ include "mp.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: monitoring-platform
{{- end -}}

{{/*
The labels of a component's ops Service: what the ServiceMonitor selects, and the job name it
gives the targets (its jobLabel). The job is monitoring-platform-<component> whatever the release
is called, because the alert rules and the dashboard (files/) match job=~"monitoring-platform.*";
the release still shows in the namespace, service and pod labels of every series.
*/}}
{{- define "mp.opsServiceLabels" -}}
monitoring-platform/ops: "true"
monitoring-platform/job: monitoring-platform-{{ .component }}
{{- end -}}

{{- define "mp.serviceAccountName" -}}
{{- if .root.Values.serviceAccount.create -}}
{{ include "mp.componentName" . }}
{{- else -}}
default
{{- end -}}
{{- end -}}

{{- define "mp.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}

{{/*
Facts of the code, not settings: each service's entry point, the variables that carry its gRPC
port and address, and the services it calls itself (the gateway calls them all). The
NetworkPolicies allow exactly these calls.
*/}}
{{- define "mp.serviceFacts" -}}
identity: { portEnv: MP_IDENTITY_GRPC_PORT, addrEnv: MP_IDENTITY_ADDR, calls: [] }
projects: { portEnv: MP_PROJECTS_GRPC_PORT, addrEnv: MP_PROJECTS_ADDR, calls: [monitoring-data] }
monitoring-data: { portEnv: MP_MONITORING_DATA_GRPC_PORT, addrEnv: MP_MONITORING_DATA_ADDR, calls: [projects, identity] }
reports: { portEnv: MP_REPORTS_GRPC_PORT, addrEnv: MP_REPORTS_ADDR, calls: [projects, monitoring-data] }
webhooks: { portEnv: MP_WEBHOOKS_GRPC_PORT, addrEnv: MP_WEBHOOKS_ADDR, calls: [projects, monitoring-data] }
{{- end -}}

{{/* A service's address as gRPC clients dial it: every ready pod behind the headless Service. */}}
{{- define "mp.grpcAddress" -}}
dns:///{{ include "mp.componentName" (dict "root" .root "component" .service) }}:{{ (index .root.Values.services .service).grpcPort }}
{{- end -}}

{{/* Settings every component gets, in the ConfigMap (non-secret only). */}}
{{- define "mp.commonSettings" -}}
{{- /* The ops server on every interface at the port the probes and the ServiceMonitor use (the
schema refuses MP_OPS_HOST and MP_OPS_PORT in env, so nothing moves it away from them). */}}
MP_OPS_HOST: "0.0.0.0"
MP_OPS_PORT: {{ .Values.ops.port | quote }}
MP_NATS_STREAM: {{ .Values.events.stream | quote }}
MP_NATS_SUBJECT_PREFIX: {{ .Values.events.subjectPrefix | quote }}
MP_GRPC_HOST: "0.0.0.0"
{{- /* The drain's bound: what is left of the grace period after the preStop wait, less 5 s so the
process exits on its own before the kubelet's SIGKILL. */}}
{{- $drain := sub (sub .Values.drain.terminationGracePeriodSeconds .Values.drain.preStopSeconds) 5 }}
{{- if lt $drain 5 }}
{{- fail "drain.terminationGracePeriodSeconds must exceed drain.preStopSeconds by at least 10 seconds" }}
{{- end }}
MP_SHUTDOWN_TIMEOUT_MS: {{ mul $drain 1000 | quote }}
{{- with .Values.tracing }}
{{- if .endpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ .endpoint | quote }}
OTEL_EXPORTER_OTLP_PROTOCOL: {{ .protocol | quote }}
OTEL_TRACES_SAMPLER: {{ .sampler | quote }}
{{- if ne (toString .samplerArg) "" }}
OTEL_TRACES_SAMPLER_ARG: {{ .samplerArg | toString | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- range $k, $v := .Values.env }}
{{ $k }}: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* A credential from an existing Secret: (dict "env" "MP_X" "ref" .Values.secrets.x). */}}
{{- define "mp.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ required (printf "secrets: a Secret name for %s is required" .env) .ref.name }}
      key: {{ required (printf "secrets: a key for %s is required" .env) .ref.key }}
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
- { name: tmp, mountPath: /tmp }
{{- end -}}

{{- define "mp.identityVolumes" -}}
- name: service-key
  secret:
    secretName: {{ .root.Values.serviceKeys.secretName }}
    defaultMode: 0400
    items: [{ key: {{ .party }}.key, path: service.key }]
- name: peer-keys
  secret:
    secretName: {{ .root.Values.serviceKeys.secretName }}
    items:
      {{- range $p := list "gateway" "identity" "projects" "monitoring-data" "reports" "webhooks" "operator" }}
      - { key: {{ $p }}.pub, path: {{ $p }}.pub }
      {{- end }}
{{- if .root.Values.grpcTls.secretName }}
- name: grpc-tls
  secret:
    secretName: {{ .root.Values.grpcTls.secretName }}
    defaultMode: 0400
    items: [{ key: ca.crt, path: ca.crt }, { key: {{ .party }}.crt, path: tls.crt }, { key: {{ .party }}.key, path: tls.key }]
{{- end }}
- name: tmp
  emptyDir: { sizeLimit: {{ .root.Values.tmpSizeLimit }} }
{{- end -}}

{{/*
What every component's pod shares: the pod template metadata (labels, the checksum of the
settings so a change rolls the pods), security, probes on the ops port, the drain hook.
(dict "root" $ "component" "identity" "values" $componentValues)
*/}}
{{- define "mp.podMetadata" -}}
labels:
  {{- include "mp.labels" . | nindent 2 }}
annotations:
  checksum/config: {{ include (print .root.Template.BasePath "/configmap.yaml") .root | sha256sum }}
  {{- with .values.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}

{{- define "mp.podSpec" -}}
serviceAccountName: {{ include "mp.serviceAccountName" . }}
automountServiceAccountToken: {{ .root.Values.serviceAccount.automountServiceAccountToken }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
terminationGracePeriodSeconds: {{ .root.Values.drain.terminationGracePeriodSeconds }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if .root.Values.spreadAcrossNodes }}
# Replicas of a component on different nodes where the scheduler can: one node lost takes one.
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "mp.selectorLabels" . | nindent 8 }}
{{- end }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The container fields every component shares (after name, command, ports and env). */}}
{{- define "mp.containerCommon" -}}
image: {{ include "mp.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
envFrom:
  - configMapRef: { name: {{ include "mp.fullname" .root }}-config }
securityContext:
  {{- toYaml .root.Values.securityContext | nindent 2 }}
# Started once /livez answers (up to 2 minutes: migrations run before the ports open); out of
# rotation while /readyz says it cannot serve its own traffic (starting, draining); restarted
# when /livez stops answering.
startupProbe:
  httpGet: { path: /livez, port: ops }
  periodSeconds: 2
  failureThreshold: 60
readinessProbe:
  httpGet: { path: /readyz, port: ops }
  periodSeconds: 5
  timeoutSeconds: 2
  failureThreshold: 2
livenessProbe:
  httpGet: { path: /livez, port: ops }
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
lifecycle:
  preStop:
    exec: { command: [sleep, {{ .root.Values.drain.preStopSeconds | quote }}] }
resources:
  {{- toYaml .values.resources | nindent 2 }}
{{- end -}}

{{/* A component's own settings (non-secret), after the common ones: its trace service name when
tracing is on, then its env values. */}}
{{- define "mp.componentEnv" -}}
{{- if .root.Values.tracing.endpoint }}
- name: OTEL_SERVICE_NAME
  value: {{ .component | quote }}
{{- end }}
{{- range $k, $v := .values.env }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* Every component's values by name: the gateway and each service. */}}
{{- define "mp.components" -}}
{{- $all := dict "gateway" .Values.gateway -}}
{{- range $name, $svc := .Values.services }}{{ $_ := set $all $name $svc }}{{ end -}}
{{- toYaml $all -}}
{{- end -}}

{{/* The trace collector's port: the endpoint's, or its scheme's (80, 443). */}}
{{- define "mp.otlpPort" -}}
{{- $u := urlParse .Values.tracing.endpoint -}}
{{- $port := regexFind ":[0-9]+$" $u.host | trimPrefix ":" -}}
{{- default (ternary "443" "80" (eq $u.scheme "https")) $port -}}
{{- end -}}

{{/* Egress to PostgreSQL, NATS or Redis: (dict "what" "NATS" "peer" .Values.networkPolicy.nats). */}}
{{- define "mp.infraEgress" -}}
- # {{ .what }}
  ports: [{ port: {{ .peer.port }}, protocol: TCP }]
  {{- with .peer.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
