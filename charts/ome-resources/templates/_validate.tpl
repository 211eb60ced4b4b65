{{/*
The manager's rules on its multi-cluster settings that a JSON schema cannot state: rules
between fields (a probe timeout not shorter than its period, a rampUp or flapDamping window
under it, a status in both lists, a poll past the observer's limits, a Gateway without a
port) and a few on lists of values (the statuses a probe must not gate on).
values.schema.json holds the rest (types, ranges, required fields, unknown keys).

ome-resources.configProblems renders one line per rule the values break, in the order and
with the words the manager logs when it refuses to start (pkg/config), so that one grep
finds a problem in helm's error or in the manager's log; nothing when the values are good.
test/chart checks each rule against the manager's own loader.
*/}}
{{- define "ome-resources.configProblems" -}}
{{- $pre := "invalid multi-cluster configuration: " -}}
{{- $p := list -}}
{{- $cfg := .Values.ome.multicluster.config -}}
{{- $r := $cfg.routing | default dict -}}
{{- $obs := $r.observer | default dict -}}

{{- /* routing.observer: its period limits; unset maxima are the manager's defaults. */ -}}
{{- $minPeriod := 0 -}}
{{- if $obs.minPeriod }}{{ $minPeriod = include "ome-resources.durationNs" $obs.minPeriod | int64 }}{{ end -}}
{{- $maxPeriod := 300000000000 -}}
{{- if $obs.maxPeriod }}{{ $maxPeriod = include "ome-resources.durationNs" $obs.maxPeriod | int64 }}{{ end -}}
{{- $maxTimeout := 30000000000 -}}
{{- if $obs.maxTimeout }}{{ $maxTimeout = include "ome-resources.durationNs" $obs.maxTimeout | int64 }}{{ end -}}
{{- if and (gt $minPeriod 0) (gt $maxPeriod 0) (gt $minPeriod $maxPeriod) -}}
{{- $p = append $p (printf "%srouting.observer.minPeriod (%s) must not be over routing.observer.maxPeriod (%s)" $pre (include "ome-resources.formatDuration" $minPeriod) (include "ome-resources.formatDuration" $maxPeriod)) -}}
{{- end -}}

{{- /* routing.probe, checked whether routing is on or not, as the manager does. */ -}}
{{- $probe := $r.probe -}}
{{- if and (kindIs "map" $probe) $probe -}}
{{- $gate := list -}}
{{- range $probe.gateStatuses }}{{ $gate = append $gate (int .) }}{{ end -}}
{{- $found := list -}}
{{- range $gate -}}
{{- if and (has . (list 401 403 429)) (not (has . $found)) -}}
{{- $found = append $found . -}}
{{- $p = append $p (printf "%srouting.probe.gateStatuses must not contain %d" $pre .) -}}
{{- end -}}
{{- end -}}
{{- $both := list -}}
{{- range $probe.acceptStatuses -}}
{{- $s := int . -}}
{{- if and (has $s $gate) (not (has $s $both)) -}}
{{- $both = append $both $s -}}
{{- $p = append $p (printf "%srouting.probe: status %d is in both acceptStatuses and gateStatuses" $pre $s) -}}
{{- end -}}
{{- end -}}
{{- $period := include "ome-resources.durationNs" $probe.period | int64 -}}
{{- $timeout := include "ome-resources.durationNs" $probe.timeout | int64 -}}
{{- if ge $timeout $period -}}
{{- $p = append $p (printf "%srouting.probe.timeout (%s) must be shorter than routing.probe.period (%s)" $pre (include "ome-resources.formatDuration" $timeout) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- if $probe.rampUp -}}
{{- $rampUp := include "ome-resources.durationNs" $probe.rampUp | int64 -}}
{{- if lt $rampUp $period -}}
{{- $p = append $p (printf "%srouting.probe.rampUp (%s) must be at least routing.probe.period (%s)" $pre (include "ome-resources.formatDuration" $rampUp) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- end -}}
{{- if and (kindIs "map" $probe.flapDamping) $probe.flapDamping.window -}}
{{- $window := include "ome-resources.durationNs" $probe.flapDamping.window | int64 -}}
{{- if lt $window $period -}}
{{- $p = append $p (printf "%srouting.probe.flapDamping.window (%s) must be at least routing.probe.period (%s)" $pre (include "ome-resources.formatDuration" $window) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- end -}}
{{- if and (gt $minPeriod 0) (lt $period $minPeriod) -}}
{{- $p = append $p (printf "%srouting.probe.period (%s) must be at least routing.observer.minPeriod (%s)" $pre (include "ome-resources.formatDuration" $period) (include "ome-resources.formatDuration" $minPeriod)) -}}
{{- end -}}
{{- if and (gt $maxPeriod 0) (gt $period $maxPeriod) -}}
{{- $p = append $p (printf "%srouting.probe.period (%s) must be at most routing.observer.maxPeriod (%s)" $pre (include "ome-resources.formatDuration" $period) (include "ome-resources.formatDuration" $maxPeriod)) -}}
{{- end -}}
{{- if and (gt $maxTimeout 0) (gt $timeout $maxTimeout) -}}
{{- $p = append $p (printf "%srouting.probe.timeout (%s) must be at most routing.observer.maxTimeout (%s)" $pre (include "ome-resources.formatDuration" $timeout) (include "ome-resources.formatDuration" $maxTimeout)) -}}
{{- end -}}
{{- end -}}

{{- /* routing.capacity, checked only with routing on: a poll staged while it is off is inert. */ -}}
{{- $cap := $r.capacity -}}
{{- if and $r.enabled (kindIs "map" $cap) $cap -}}
{{- $period := include "ome-resources.durationNs" $cap.period | int64 -}}
{{- $timeout := include "ome-resources.durationNs" $cap.timeout | int64 -}}
{{- $maxAge := include "ome-resources.durationNs" $cap.maxAge | int64 -}}
{{- $samples := int64 $cap.samples -}}
{{- $quorum := int64 $cap.quorum -}}
{{- if ge $timeout $period -}}
{{- $p = append $p (printf "%srouting.capacity.timeout (%s) must be shorter than routing.capacity.period (%s)" $pre (include "ome-resources.formatDuration" $timeout) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- if gt $quorum $samples -}}
{{- $p = append $p (printf "%srouting.capacity.quorum (%d) must not exceed routing.capacity.samples (%d)" $pre $quorum $samples) -}}
{{- end -}}
{{- if lt $maxAge $period -}}
{{- $p = append $p (printf "%srouting.capacity.maxAge (%s) must be at least routing.capacity.period (%s)" $pre (include "ome-resources.formatDuration" $maxAge) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- if and (gt $quorum 1) (lt (div $maxAge $period) $quorum) -}}
{{- $p = append $p (printf "%srouting.capacity.maxAge (%s) must span at least quorum (%d) routing.capacity.period intervals" $pre (include "ome-resources.formatDuration" $maxAge) $quorum) -}}
{{- end -}}
{{- if $cap.options -}}
{{- $p = append $p (printf "%srouting.capacity.options: format %q takes no options, got [%s]" $pre $cap.format (keys $cap.options | sortAlpha | join " ")) -}}
{{- end -}}
{{- if and (gt $minPeriod 0) (lt $period $minPeriod) -}}
{{- $p = append $p (printf "%srouting.capacity.period (%s) must be at least routing.observer.minPeriod (%s)" $pre (include "ome-resources.formatDuration" $period) (include "ome-resources.formatDuration" $minPeriod)) -}}
{{- end -}}
{{- if and $obs.maxSamples (gt $samples (int64 $obs.maxSamples)) -}}
{{- $p = append $p (printf "%srouting.capacity.samples (%d) must not exceed routing.observer.maxSamples (%d)" $pre $samples (int64 $obs.maxSamples)) -}}
{{- end -}}
{{- end -}}

{{- /* endpoint: a Gateway needs the port its routes send to; gateway features need a Gateway. */ -}}
{{- $e := $cfg.endpoint | default dict -}}
{{- $backend := $e.gatewayBackend | default dict -}}
{{- if and $e.globalGateway (not $e.backendPort) -}}
{{- $p = append $p (printf "%sendpoint.backendPort: must be set when endpoint.globalGateway is configured (%q)" $pre $e.globalGateway) -}}
{{- end -}}
{{- if and (not $e.globalGateway) $backend.rewriteHostname -}}
{{- $p = append $p (printf "%sendpoint.globalGateway: must be set when gateway backend features are enabled" $pre) -}}
{{- end -}}
{{- if and (eq (toString $e.globalHostAnnotation) "UnderNamespace") (not $e.globalHostTemplate) -}}
{{- $p = append $p (printf "%sendpoint.globalHostAnnotation: %q needs endpoint.globalHostTemplate, which gives each namespace its suffix" $pre "UnderNamespace") -}}
{{- end -}}
{{- join "\n" $p -}}
{{- end }}

{{/*
ome-resources.durationNs is a Go duration (such as 1m30s or 1.5s, in the schema's form) in
nanoseconds, worked out as time.ParseDuration does, fractions included.
*/}}
{{- define "ome-resources.durationNs" -}}
{{- $units := dict "ns" 1 "us" 1000 "ms" 1000000 "s" 1000000000 "m" 60000000000 "h" 3600000000000 -}}
{{- $total := 0 -}}
{{- range regexFindAll "[0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h)" (toString .) -1 -}}
{{- $unit := get $units (regexFind "(ns|us|ms|s|m|h)$" .) -}}
{{- $total = add $total (mul (atoi (regexFind "^[0-9]+" .)) $unit) -}}
{{- $frac := regexFind "[0-9]+" (regexFind "\\.[0-9]+" .) -}}
{{- if $frac -}}
{{- $scale := float64 (printf "1%s" (repeat (len $frac) "0")) -}}
{{- $total = add $total (int64 (mulf (float64 $frac) (divf $unit $scale))) -}}
{{- end -}}
{{- end -}}
{{- $total -}}
{{- end }}

{{/*
ome-resources.formatDuration writes nanoseconds as Go's time.Duration.String does (1m30s,
1.5s, 500ms, 1h0m0s), which is how the manager quotes a duration in its messages.
*/}}
{{- define "ome-resources.formatDuration" -}}
{{- $d := int64 . -}}
{{- if eq $d 0 -}}
0s
{{- else if lt $d 1000000000 -}}
{{- $prec := 6 }}{{ $unit := "ms" -}}
{{- if lt $d 1000 }}{{ $prec = 0 }}{{ $unit = "ns" }}{{ else if lt $d 1000000 }}{{ $prec = 3 }}{{ $unit = "µs" }}{{ end -}}
{{- $scale := int64 (printf "1%s" (repeat $prec "0")) -}}
{{- div $d $scale }}{{ include "ome-resources.fraction" (list (mod $d $scale) $prec) }}{{ $unit -}}
{{- else -}}
{{- $secs := div $d 1000000000 -}}
{{- $h := div $secs 3600 }}{{ $m := mod (div $secs 60) 60 -}}
{{- if gt $h 0 }}{{ $h }}h{{ end }}{{ if or (gt $h 0) (gt $m 0) }}{{ $m }}m{{ end -}}
{{- mod $secs 60 }}{{ include "ome-resources.fraction" (list (mod $d 1000000000) 9) }}s
{{- end -}}
{{- end }}

{{/* ome-resources.fraction is ".5" for (list 500 3): digits of a fraction, trailing zeros dropped. */}}
{{- define "ome-resources.fraction" -}}
{{- $v := index . 0 }}{{ $prec := index . 1 -}}
{{- if gt (int64 $v) 0 -}}
.{{ regexReplaceAll "0+$" (printf "%0*d" $prec (int64 $v)) "" }}
{{- end -}}
{{- end }}
