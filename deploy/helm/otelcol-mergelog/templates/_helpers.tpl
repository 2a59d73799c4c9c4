{{/*
The prefix of every object's name: the release name unless fullnameOverride is set. At most 40
characters, so that <fullname>-gateway-headless and the StatefulSet's pod names stay within
Kubernetes' 63.
*/}}
{{- define "otelcol-mergelog.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- end }}

{{- define "otelcol-mergelog.agentName" -}}
{{- include "otelcol-mergelog.fullname" . }}-agent
{{- end }}

{{- define "otelcol-mergelog.gatewayName" -}}
{{- include "otelcol-mergelog.fullname" . }}-gateway
{{- end }}

{{/*
The labels of a tier's objects and pods: ours (as the kustomize base's) and Helm's.
Called with (list $ "agent") or (list $ "gateway").
*/}}
{{- define "otelcol-mergelog.labels" -}}
{{- $ := index . 0 }}
{{- $tier := index . 1 -}}
app.kubernetes.io/name: {{ include "otelcol-mergelog.fullname" $ }}-{{ $tier }}
app.kubernetes.io/component: {{ $tier }}
app.kubernetes.io/part-of: otelcol-mergelog
{{ include "otelcol-mergelog.helmLabels" $ }}
{{- end }}

{{/* Helm's labels, on every object (alone on the ConfigMaps, which nothing selects). */}}
{{- define "otelcol-mergelog.helmLabels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/* A tier's selector: its name, and the release, so that two releases never select each other's pods. */}}
{{- define "otelcol-mergelog.selectorLabels" -}}
{{- $ := index . 0 }}
{{- $tier := index . 1 -}}
app.kubernetes.io/name: {{ include "otelcol-mergelog.fullname" $ }}-{{ $tier }}
app.kubernetes.io/instance: {{ $.Release.Name }}
{{- end }}

{{/*
An image, by digest when one is given, else by tag (default: the chart's appVersion). Called
with (list $ "gateway") or (list $ "agent"): the agents run the agent's build unless they merge
or add pod metadata (load_balancing, kafka and k8s_attributes are in the full build only).
*/}}
{{- define "otelcol-mergelog.image" -}}
{{- $ := index . 0 }}
{{- $image := $.Values.image }}
{{- if and (eq (index . 1) "agent") (not $.Values.merge.enabled) (not $.Values.k8sMetadata.enabled) }}{{ $image = $.Values.agent.image }}{{ end }}
{{- if $image.digest -}}
{{ $image.repository }}@{{ $image.digest }}
{{- else -}}
{{ $image.repository }}:{{ $image.tag | default $.Chart.AppVersion }}
{{- end }}
{{- end }}

{{/*
The collector container's args: a --config for each file of the tier's ConfigMap, in order (the
collector merges them: maps key by key, lists replaced). Called with (list $ "agent") or
(list $ "gateway").
*/}}
{{- define "otelcol-mergelog.args" -}}
{{- $ := index . 0 }}
{{- $tier := index . 1 -}}
{{- $files := list "config.yaml" }}
{{- if eq $tier "agent" }}
{{- if $.Values.merge.enabled }}{{ $files = append $files "merge.yaml" }}{{ end }}
{{- if $.Values.kafka.enabled }}{{ $files = append $files "kafka.yaml" }}{{ end }}
{{- if $.Values.k8sMetadata.enabled }}{{ $files = append $files "k8s-metadata.yaml" }}{{ end }}
{{- end }}
{{- if $.Values.mtls.enabled }}{{ $files = append $files "mtls.yaml" }}{{ end }}
{{- if and (eq $tier "agent") (include "otelcol-mergelog.gatewaySplit" $) }}{{ $files = append $files "gateway-namespace.yaml" }}{{ end }}
{{- if (index $.Values $tier).extraConfig }}{{ $files = append $files "extra.yaml" }}{{ end }}
{{- $args := list }}
{{- range $files }}{{ $args = append $args (printf "--config=/etc/otelcol/%s" .) }}{{ end }}
{{- toJson $args }}
{{- end }}

{{/* The agents' priorityClassName: agent.priorityClassName, else the chart's PriorityClass if created. */}}
{{- define "otelcol-mergelog.agentPriorityClassName" -}}
{{- if .Values.agent.priorityClassName }}{{ .Values.agent.priorityClassName }}
{{- else if .Values.agent.priorityClass.create }}{{ include "otelcol-mergelog.agentName" . }}
{{- end }}
{{- end }}

{{/* The mtls Secrets' names and the name the agents verify (mtls.*, or their defaults). */}}
{{- define "otelcol-mergelog.agentTLSSecret" -}}
{{- .Values.mtls.agentSecret | default (printf "%s-tls" (include "otelcol-mergelog.agentName" .)) }}
{{- end }}

{{- define "otelcol-mergelog.gatewayTLSSecret" -}}
{{- .Values.mtls.gatewaySecret | default (printf "%s-tls" (include "otelcol-mergelog.gatewayName" .)) }}
{{- end }}

{{- define "otelcol-mergelog.tlsServerName" -}}
{{- .Values.mtls.serverName | default (printf "%s.%s.svc" (include "otelcol-mergelog.gatewayName" .) .Release.Namespace) }}
{{- end }}

{{/* The gateways' namespace: gateway.namespace, else the release's. */}}
{{- define "otelcol-mergelog.gatewayNamespace" -}}
{{- .Values.gateway.namespace | default .Release.Namespace }}
{{- end }}

{{/* "true" when the gateways are in a namespace of their own, else empty. */}}
{{- define "otelcol-mergelog.gatewaySplit" -}}
{{- if and .Values.gateway.namespace (ne .Values.gateway.namespace .Release.Namespace) }}true{{ end }}
{{- end }}
