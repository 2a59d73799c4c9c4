{{/*
The mtls.yaml of each tier (components/mtls/agent-mtls.yaml, components/mtls-merge's
agent-mtls-merge.yaml, components/mtls/gateway-mtls.yaml), merged over its config: the agents'
exporter verifies the gateways' certificate and presents theirs; the gateways' OTLP receiver
requires a client certificate signed by the agents' CA. Files from the Secrets, mounted at
/etc/otelcol-tls, read again every reload_interval (rotated certificates without a restart).
*/}}
{{- define "otelcol-mergelog.tlsClient" -}}
insecure: false
ca_file: /etc/otelcol-tls/ca.crt
cert_file: /etc/otelcol-tls/tls.crt
key_file: /etc/otelcol-tls/tls.key
server_name_override: {{ include "otelcol-mergelog.tlsServerName" . }}
min_version: "1.3"
reload_interval: 5m
{{- end }}

{{- define "otelcol-mergelog.tlsServer" -}}
cert_file: /etc/otelcol-tls/tls.crt
key_file: /etc/otelcol-tls/tls.key
client_ca_file: /etc/otelcol-tls/ca.crt
min_version: "1.3"
reload_interval: 5m
{{- end }}

{{- define "otelcol-mergelog.agentMTLSConfig" -}}
exporters:
{{- if .Values.merge.enabled }}
  load_balancing:
    protocol:
      otlp:
        tls:
          {{- include "otelcol-mergelog.tlsClient" . | nindent 10 }}
{{- else }}
  otlp_grpc:
    tls:
      {{- include "otelcol-mergelog.tlsClient" . | nindent 6 }}
{{- end }}
{{- end }}

{{- define "otelcol-mergelog.gatewayMTLSConfig" -}}
receivers:
  otlp:
    protocols:
      grpc:
        tls:
          {{- include "otelcol-mergelog.tlsServer" . | nindent 10 }}
      http:
        tls:
          {{- include "otelcol-mergelog.tlsServer" . | nindent 10 }}
{{- end }}
