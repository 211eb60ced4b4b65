{{/*
Names that other things depend on: the spec's kubectl commands select the manager by its
control-plane label, and the manager reads the settings file at the path passed to it.
*/}}
{{- define "ome-resources.managerName" -}}ome-controller-manager{{- end }}
{{- define "ome-resources.configMapName" -}}inferenceservice-config{{- end }}
{{- define "ome-resources.configDir" -}}/etc/ome/inferenceservice-config{{- end }}
{{- define "ome-resources.configFile" -}}multicluster.json{{- end }}

{{/* ome-resources.labels: the labels on every object of the release. */}}
{{- define "ome-resources.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* ome-resources.selectorLabels: the manager pods' labels that its Deployment selects on. */}}
{{- define "ome-resources.selectorLabels" -}}
control-plane: {{ include "ome-resources.managerName" . }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
ome-resources.leaderElect is "true" when the manager runs with --leader-elect: always with
more than one replica, since only one of them may probe and write.
*/}}
{{- define "ome-resources.leaderElect" -}}
{{- if or .Values.leaderElection.enabled (gt (int .Values.replicas) 1) -}}true{{- end -}}
{{- end }}

{{/*
ome-resources.multiclusterConfig is the JSON the manager loads with --multicluster-config.
It renders the values as they are (the manager decodes them strictly), after refusing
routing without the topology that it runs in (the manager repeats that check for
installations that set its flags by hand) and values that break one of the manager's rules
between fields (_validate.tpl), which would make the new pod crash-loop.
*/}}
{{- define "ome-resources.multiclusterConfig" -}}
{{- $mc := .Values.ome.multicluster -}}
{{- if and $mc.config.routing.enabled (not (and $mc.enabled (eq $mc.role "control-plane"))) -}}
{{- fail "ome.multicluster.config.routing.enabled=true requires ome.multicluster.enabled=true and ome.multicluster.role=control-plane" -}}
{{- end -}}
{{- with include "ome-resources.configProblems" . -}}
{{- fail (printf "the manager would refuse ome.multicluster.config and crash-loop:\n%s" .) -}}
{{- end -}}
{{- toJson $mc.config -}}
{{- end }}

{{/*
ome-resources.signalTokenSecret is routing.trafficSignal.prometheus.bearerTokenSecret as
JSON ({"name": ..., "key": ...}), or {} when none is set.
*/}}
{{- define "ome-resources.signalTokenSecret" -}}
{{- $ts := (.Values.ome.multicluster.config.routing | default dict).trafficSignal | default dict -}}
{{- $p := $ts.prometheus | default dict -}}
{{- toJson ($p.bearerTokenSecret | default dict) -}}
{{- end }}
