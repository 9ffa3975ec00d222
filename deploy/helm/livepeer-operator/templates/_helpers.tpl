{{- define "lpo.name" -}}livepeer-operator{{- end -}}
{{- define "lpo.fullname" -}}{{ printf "%s" .Release.Name | trunc 40 | trimSuffix "-" }}{{- end -}}
{{- define "lpo.image" -}}{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{- end -}}
{{- define "lpo.labels" -}}
app.kubernetes.io/name: {{ include "lpo.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
{{- define "lpo.selector" -}}
app.kubernetes.io/name: {{ include "lpo.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- define "lpo.jwtSecret" -}}{{ .Values.api.jwt.existingSecret | default (printf "%s-api-jwt" (include "lpo.fullname" .)) }}{{- end -}}
{{/* Restricted pod security: non-root, read-only root, no capabilities, RuntimeDefault seccomp. */}}
{{- define "lpo.podSecurity" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}
{{- define "lpo.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}
