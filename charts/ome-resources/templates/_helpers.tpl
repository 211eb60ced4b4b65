{{/*
Names that other things depend on: the spec's kubectl commands select the manager by its
control-plane label, and the manager reads the settings file at the path passed to it.
*/}}
{{- define "ome-resources.managerName" -}}ome-controller-manager{{- end }}
{{- define "ome-resources.configMapName" -}}inferenceservice-config{{- end }}
{{- define "ome-resources.configDir" -}}/etc/ome/inferenceservice-config{{- end }}
{{- define "ome-resources.configFile" -}}multicluster.json{{- end }}
{{- define "ome-resources.profileProvidersFile" -}}clusterprofile-providers.json{{- end }}

{{/*
ome-resources.profileProviders is the provider file of ome.multicluster.clusterProfiles
(JSON {"providers": [...]}) when ClusterProfiles are read, nothing otherwise. It refuses,
as the manager would, a namespace without providers and providers without a namespace.
*/}}
{{- define "ome-resources.profileProviders" -}}
{{- $mc := .Values.ome.multicluster -}}
{{- $cp := $mc.clusterProfiles -}}
{{- if and $cp.namespace (not $cp.providers) -}}
{{- fail "ome.multicluster.clusterProfiles.namespace is set and providers is empty: a ClusterProfile connects through the access providers listed there" -}}
{{- end -}}
{{- if and $cp.providers (not $cp.namespace) -}}
{{- fail "ome.multicluster.clusterProfiles.providers are set and namespace is empty: set the namespace ClusterProfiles are read from" -}}
{{- end -}}
{{- if and $cp.namespace $mc.enabled -}}
{{- toJson (dict "providers" $cp.providers) -}}
{{- end -}}
{{- end }}

{{/*
ome-resources.execVariables is ome.multicluster.execCredentials.allowedVariables as the
manager's comma-separated flag, after refusing, in the manager's words (ExecPolicy.Validate
in controllers/workloadcluster), a name only the manager may set for a plugin: the same
names (compared without case) and prefixes as its reservedVariables and reservedPrefixes.
*/}}
{{- define "ome-resources.execVariables" -}}
{{- $names := list "PATH" "HOME" "KUBERNETES_EXEC_INFO" "SHELL" "ENV" "BASH_ENV" "IFS" "CDPATH" "TMPDIR" "PYTHONPATH" "PYTHONHOME" "PYTHONSTARTUP" "PYTHONUSERBASE" "PYTHONINSPECT" "NODE_OPTIONS" "NODE_PATH" "PERL5LIB" "PERLLIB" "PERL5OPT" "RUBYLIB" "RUBYOPT" "GEM_PATH" "GEM_HOME" "JAVA_TOOL_OPTIONS" "_JAVA_OPTIONS" "JDK_JAVA_OPTIONS" "CLASSPATH" "GCONV_PATH" "LOCPATH" "NLSPATH" "GOFLAGS" "GODEBUG" "XDG_CONFIG_HOME" "XDG_DATA_HOME" "XDG_CACHE_HOME" "HTTP_PROXY" "HTTPS_PROXY" "ALL_PROXY" "NO_PROXY" "SSL_CERT_FILE" "SSL_CERT_DIR" "REQUESTS_CA_BUNDLE" "CURL_CA_BUNDLE" "NODE_EXTRA_CA_CERTS" "AWS_CA_BUNDLE" -}}
{{- $prefixes := list "LD_" "DYLD_" "PYTHON" "NODE_" -}}
{{- $rule := "PATH, HOME, KUBERNETES_EXEC_INFO, loader variables LD_* and DYLD_*, interpreter and shell start-up paths, proxies and TLS trust stores" -}}
{{- $allowed := .Values.ome.multicluster.execCredentials.allowedVariables | default list -}}
{{- $p := list -}}
{{- range $v := $allowed -}}
{{- $u := upper $v -}}
{{- $reserved := has $u $names -}}
{{- range $prefixes -}}{{- if hasPrefix . $u -}}{{- $reserved = true -}}{{- end -}}{{- end -}}
{{- if $reserved -}}
{{- $p = append $p (printf "ome.multicluster.execCredentials.allowedVariables (--exec-credential-allowed-variables) lists %q, a variable only the manager sets for a plugin (%s)" $v $rule) -}}
{{- end -}}
{{- end -}}
{{- with $p -}}
{{- fail (printf "the manager would refuse ome.multicluster.execCredentials and crash-loop:\n%s" (join "\n" .)) -}}
{{- end -}}
{{- join "," $allowed -}}
{{- end }}

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
ome-resources.leaseArgs are the Lease timing flags, after refusing timings the manager
would refuse at start (lease.go), in its words: each positive, the lease longer than the
renew deadline, the renew deadline longer than 1.2 times the retry period.
*/}}
{{- define "ome-resources.leaseArgs" -}}
{{- $l := .Values.leaderElection -}}
{{- $flags := list (list "lease-duration" ($l.leaseDuration | default "15s")) (list "renew-deadline" ($l.renewDeadline | default "10s")) (list "retry-period" ($l.retryPeriod | default "2s")) -}}
{{- $ns := dict -}}
{{- range $flags -}}
{{- $v := include "ome-resources.durationNs" (index . 1) -}}
{{- if or (eq $v "invalid") (eq $v "0") -}}
{{- fail (printf "the manager would refuse leaderElection and crash-loop:\n--leader-elect-%s must be positive, got %s" (index . 0) (index . 1)) -}}
{{- end -}}
{{- $_ := set $ns (index . 0) (int64 $v) -}}
{{- end -}}
{{- if le (get $ns "lease-duration") (get $ns "renew-deadline") -}}
{{- fail (printf "the manager would refuse leaderElection and crash-loop:\n--leader-elect-lease-duration (%s) must be longer than --leader-elect-renew-deadline (%s)" (include "ome-resources.formatDuration" (get $ns "lease-duration")) (include "ome-resources.formatDuration" (get $ns "renew-deadline"))) -}}
{{- end -}}
{{- if le (mul (get $ns "renew-deadline") 10) (mul (get $ns "retry-period") 12) -}}
{{- fail (printf "the manager would refuse leaderElection and crash-loop:\n--leader-elect-renew-deadline (%s) must be longer than 1.2 times --leader-elect-retry-period (%s)" (include "ome-resources.formatDuration" (get $ns "renew-deadline")) (include "ome-resources.formatDuration" (get $ns "retry-period"))) -}}
{{- end -}}
{{- range $flags }}
- --leader-elect-{{ index . 0 }}={{ index . 1 }}
{{- end -}}
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
