{{/*
The manager's rules on its multi-cluster settings that a JSON schema cannot state: rules
between fields (a probe timeout not shorter than its period, a rampUp or flapDamping window
under it, a status in both lists, a poll past the observer's limits, a Gateway without a
port, a failover tier name or cluster used twice) and a few on lists of values (the
statuses a probe must not gate on).
values.schema.json holds the rest (types, ranges, required fields, unknown keys).

ome-resources.configProblems renders one line per rule the values break, in the order and
with the words the manager logs when it refuses to start (pkg/config), so that one grep
finds a problem in helm's error or in the manager's log; nothing when the values are good.
test/chart checks each rule against the manager's own loader, with the case tables the
manager's tests run too (test/settingcases, test/probecases).

A duration the schema lets through can still be past the largest time.Duration
(5124096h): the manager says it is not a duration and drops every other rule that names
it, and so does this check.
*/}}
{{- define "ome-resources.configProblems" -}}
{{- $pre := "invalid multi-cluster configuration: " -}}
{{- $p := list -}}
{{- $cfg := .Values.ome.multicluster.config -}}
{{- $r := $cfg.routing | default dict -}}
{{- $obs := $r.observer | default dict -}}

{{- /* routing.observer: its period limits; unset maxima are the manager's defaults, and a
limit that is not a duration is none. */ -}}
{{- $minPeriod := 0 -}}
{{- $maxPeriod := 300000000000 -}}
{{- $maxTimeout := 30000000000 -}}
{{- $limits := dict -}}
{{- range $field := list "minPeriod" "maxPeriod" "maxTimeout" -}}
{{- $v := get $obs $field -}}
{{- if $v -}}
{{- $ns := include "ome-resources.durationNs" $v -}}
{{- if eq $ns "invalid" -}}
{{- $p = append $p (include "ome-resources.notDuration" (list (printf "routing.observer.%s" $field) $v)) -}}
{{- $ns = "0" -}}
{{- end -}}
{{- $_ := set $limits $field ($ns | int64) -}}
{{- end -}}
{{- end -}}
{{- if hasKey $limits "minPeriod" }}{{ $minPeriod = $limits.minPeriod }}{{ end -}}
{{- if hasKey $limits "maxPeriod" }}{{ $maxPeriod = $limits.maxPeriod }}{{ end -}}
{{- if hasKey $limits "maxTimeout" }}{{ $maxTimeout = $limits.maxTimeout }}{{ end -}}
{{- if and (gt $minPeriod 0) (gt $maxPeriod 0) (gt $minPeriod $maxPeriod) -}}
{{- $p = append $p (printf "%srouting.observer.minPeriod (%s) must not be over routing.observer.maxPeriod (%s)" $pre (include "ome-resources.formatDuration" $minPeriod) (include "ome-resources.formatDuration" $maxPeriod)) -}}
{{- end -}}
{{- if and $obs.recordInterval (eq (include "ome-resources.durationNs" $obs.recordInterval) "invalid") -}}
{{- $p = append $p (include "ome-resources.notDuration" (list "routing.observer.recordInterval" $obs.recordInterval)) -}}
{{- end -}}

{{- /* routing.probe, checked whether routing is on or not, as the manager does. */ -}}
{{- $probe := $r.probe -}}
{{- if and (kindIs "map" $probe) $probe -}}
{{- $d := dict -}}
{{- $damping := $probe.flapDamping | default dict -}}
{{- $passive := $probe.passiveGate | default dict -}}
{{- range $field := list (list "period" $probe.period) (list "timeout" $probe.timeout) (list "rampUp" $probe.rampUp) (list "flapDamping.window" $damping.window) (list "passiveGate.baseEjectionTime" $passive.baseEjectionTime) (list "passiveGate.maxEjectionTime" $passive.maxEjectionTime) -}}
{{- $name := index $field 0 }}{{ $v := index $field 1 -}}
{{- if $v -}}
{{- $ns := include "ome-resources.durationNs" $v -}}
{{- if eq $ns "invalid" -}}
{{- $p = append $p (include "ome-resources.notDuration" (list (printf "routing.probe.%s" $name) $v)) -}}
{{- else -}}
{{- $_ := set $d $name ($ns | int64) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if regexMatch `^[^?#]*(/|\\|%2[fF]|%5[cC])(\.|%2[eE]){1,2}([/\\;?#]|%2[fF]|%5[cC]|$)` (toString $probe.path) -}}
{{- $p = append $p (printf "%srouting.probe.path must not contain a '.' or '..' segment, plain or percent-encoded" $pre) -}}
{{- end -}}
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
{{- /* A rule is left out when a duration it names is not one, as the manager does. */ -}}
{{- $period := $d.period }}{{ $timeout := $d.timeout -}}
{{- if and (hasKey $d "period") (hasKey $d "timeout") (ge $timeout $period) -}}
{{- $p = append $p (printf "%srouting.probe.timeout (%s) must be shorter than routing.probe.period (%s)" $pre (include "ome-resources.formatDuration" $timeout) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- if and (hasKey $d "period") (hasKey $d "rampUp") (lt $d.rampUp $period) -}}
{{- $p = append $p (printf "%srouting.probe.rampUp (%s) must be at least routing.probe.period (%s)" $pre (include "ome-resources.formatDuration" $d.rampUp) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- $window := get $d "flapDamping.window" -}}
{{- if and (hasKey $d "period") (hasKey $d "flapDamping.window") (lt $window $period) -}}
{{- $p = append $p (printf "%srouting.probe.flapDamping.window (%s) must be at least routing.probe.period (%s)" $pre (include "ome-resources.formatDuration" $window) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- $base := 30000000000 -}}
{{- if hasKey $d "passiveGate.baseEjectionTime" -}}
{{- $base = get $d "passiveGate.baseEjectionTime" -}}
{{- if le $base 0 -}}
{{- $p = append $p (printf "%srouting.probe.passiveGate.baseEjectionTime must be positive" $pre) -}}
{{- end -}}
{{- end -}}
{{- if and (hasKey $d "passiveGate.maxEjectionTime") (lt (get $d "passiveGate.maxEjectionTime") $base) -}}
{{- $p = append $p (printf "%srouting.probe.passiveGate.maxEjectionTime must be at least passiveGate.baseEjectionTime (30s when left out), got %s" $pre (include "ome-resources.formatDuration" (get $d "passiveGate.maxEjectionTime"))) -}}
{{- end -}}
{{- if and (hasKey $d "period") (gt $minPeriod 0) (lt $period $minPeriod) -}}
{{- $p = append $p (printf "%srouting.probe.period (%s) must be at least routing.observer.minPeriod (%s)" $pre (include "ome-resources.formatDuration" $period) (include "ome-resources.formatDuration" $minPeriod)) -}}
{{- end -}}
{{- if and (hasKey $d "period") (hasKey $d "timeout") -}}
{{- if and (gt $maxPeriod 0) (gt $period $maxPeriod) -}}
{{- $p = append $p (printf "%srouting.probe.period (%s) must be at most routing.observer.maxPeriod (%s)" $pre (include "ome-resources.formatDuration" $period) (include "ome-resources.formatDuration" $maxPeriod)) -}}
{{- end -}}
{{- if and (gt $maxTimeout 0) (gt $timeout $maxTimeout) -}}
{{- $p = append $p (printf "%srouting.probe.timeout (%s) must be at most routing.observer.maxTimeout (%s)" $pre (include "ome-resources.formatDuration" $timeout) (include "ome-resources.formatDuration" $maxTimeout)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* routing.publisher: its one duration. */ -}}
{{- $pub := $r.publisher | default dict -}}
{{- if and $pub.resyncInterval (eq (include "ome-resources.durationNs" $pub.resyncInterval) "invalid") -}}
{{- $p = append $p (include "ome-resources.notDuration" (list "routing.publisher.resyncInterval" $pub.resyncInterval)) -}}
{{- end -}}

{{- /* routing.publisher.retry and timeouts, checked with routing off too: the rules the schema
cannot state (a zero duration, a retry of nothing, a per-try timeout past the request's), in
pkg/retry's order and words; a duration that is not one is left out of them, as the manager
leaves it. */ -}}
{{- $rt := $pub.retry -}}
{{- $to := $pub.timeouts -}}
{{- $rd := dict -}}
{{- range $field := list (list "backoff" "retry.backoff" (and (kindIs "map" $rt) $rt.backoff)) (list "perTryTimeout" "retry.perTryTimeout" (and (kindIs "map" $rt) $rt.perTryTimeout)) (list "request" "timeouts.request" (and (kindIs "map" $to) $to.request)) -}}
{{- $v := index $field 2 -}}
{{- if $v -}}
{{- $ns := include "ome-resources.durationNs" $v -}}
{{- if eq $ns "invalid" -}}
{{- $p = append $p (include "ome-resources.notDuration" (list (printf "routing.publisher.%s" (index $field 1)) $v)) -}}
{{- else -}}
{{- $_ := set $rd (index $field 0) ($ns | int64) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if kindIs "map" $rt -}}
{{- if and (hasKey $rt "connectionFailures") (not $rt.connectionFailures) (not $rt.codes) -}}
{{- $p = append $p (printf "%srouting.publisher.retry: an enabled retry must retry connectionFailures, codes, or both" $pre) -}}
{{- end -}}
{{- range $field := list (list "backoff" "backoff must be positive") (list "perTryTimeout" "perTryTimeout must be positive") -}}
{{- if and (hasKey $rd (index $field 0)) (le (get $rd (index $field 0)) 0) -}}
{{- $p = append $p (printf "%srouting.publisher.retry.%s: %s, got 0s" $pre (index $field 0) (index $field 1)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and (kindIs "map" $to) (hasKey $rd "request") (le (get $rd "request") 0) -}}
{{- $p = append $p (printf "%srouting.publisher.timeouts.request: request must be positive, got 0s" $pre) -}}
{{- end -}}
{{- if and (hasKey $rd "perTryTimeout") (hasKey $rd "request") (gt (get $rd "request") 0) (gt (get $rd "perTryTimeout") (get $rd "request")) -}}
{{- $p = append $p (printf "%srouting.publisher: retry.perTryTimeout must not be longer than timeouts.request (%s over %s)" $pre (include "ome-resources.formatDuration" (get $rd "perTryTimeout")) (include "ome-resources.formatDuration" (get $rd "request"))) -}}
{{- end -}}

{{- /* routing.capacity, checked only with routing on: a poll staged while it is off is inert. */ -}}
{{- $cap := $r.capacity -}}
{{- if and $r.enabled (kindIs "map" $cap) $cap -}}
{{- $d := dict -}}
{{- range $field := list (list "period" $cap.period) (list "timeout" $cap.timeout) (list "maxAge" $cap.maxAge) -}}
{{- $name := index $field 0 }}{{ $v := index $field 1 -}}
{{- $ns := include "ome-resources.durationNs" $v -}}
{{- if eq $ns "invalid" -}}
{{- $p = append $p (include "ome-resources.notDuration" (list (printf "routing.capacity.%s" $name) $v)) -}}
{{- else -}}
{{- $_ := set $d $name ($ns | int64) -}}
{{- end -}}
{{- end -}}
{{- $period := $d.period }}{{ $timeout := $d.timeout }}{{ $maxAge := $d.maxAge -}}
{{- $samples := int64 $cap.samples -}}
{{- $quorum := int64 $cap.quorum -}}
{{- if and (hasKey $d "period") (hasKey $d "timeout") (ge $timeout $period) -}}
{{- $p = append $p (printf "%srouting.capacity.timeout (%s) must be shorter than routing.capacity.period (%s)" $pre (include "ome-resources.formatDuration" $timeout) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- if gt $quorum $samples -}}
{{- $p = append $p (printf "%srouting.capacity.quorum (%d) must not exceed routing.capacity.samples (%d)" $pre $quorum $samples) -}}
{{- end -}}
{{- if and (hasKey $d "period") (hasKey $d "maxAge") -}}
{{- if lt $maxAge $period -}}
{{- $p = append $p (printf "%srouting.capacity.maxAge (%s) must be at least routing.capacity.period (%s)" $pre (include "ome-resources.formatDuration" $maxAge) (include "ome-resources.formatDuration" $period)) -}}
{{- end -}}
{{- if and (gt $quorum 1) (lt (div $maxAge $period) $quorum) -}}
{{- $p = append $p (printf "%srouting.capacity.maxAge (%s) must span at least quorum (%d) routing.capacity.period intervals" $pre (include "ome-resources.formatDuration" $maxAge) $quorum) -}}
{{- end -}}
{{- end -}}
{{- if $cap.options -}}
{{- $p = append $p (printf "%srouting.capacity.options: format %q takes no options, got [%s]" $pre $cap.format (keys $cap.options | sortAlpha | join " ")) -}}
{{- end -}}
{{- if and (hasKey $d "period") (gt $minPeriod 0) (lt $period $minPeriod) -}}
{{- $p = append $p (printf "%srouting.capacity.period (%s) must be at least routing.observer.minPeriod (%s)" $pre (include "ome-resources.formatDuration" $period) (include "ome-resources.formatDuration" $minPeriod)) -}}
{{- end -}}
{{- if and $obs.maxSamples (gt $samples (int64 $obs.maxSamples)) -}}
{{- $p = append $p (printf "%srouting.capacity.samples (%d) must not exceed routing.observer.maxSamples (%d)" $pre $samples (int64 $obs.maxSamples)) -}}
{{- end -}}
{{- end -}}

{{- /* routing.failover, checked with routing off too (as the manager does): the rules across
tiers. The schema holds each tier's own. A name is told once, at its second use; a cluster
once, at its first use in a second tier; both in the tiers' order, as pkg/failover does. */ -}}
{{- $fo := $r.failover -}}
{{- if and (kindIs "map" $fo) (kindIs "slice" $fo.tiers) -}}
{{- $names := dict }}{{ $tierOf := dict -}}
{{- range $i, $t := $fo.tiers -}}
{{- if kindIs "map" $t -}}
{{- $name := toString $t.name -}}
{{- $_ := set $names $name (add1 (get $names $name | default 0)) -}}
{{- if eq (get $names $name) 2 -}}
{{- $p = append $p (printf "%srouting.failover: tier names must be unique (%s is used more than once)" $pre $name) -}}
{{- end -}}
{{- range $c := $t.clusters | default list -}}
{{- $c = toString $c -}}
{{- if not (hasKey $tierOf $c) -}}
{{- $_ := set $tierOf $c $i -}}
{{- else if and (ne (int (get $tierOf $c)) $i) (ge (int (get $tierOf $c)) 0) -}}
{{- $p = append $p (printf "%srouting.failover: cluster %s is in more than one tier" $pre $c) -}}
{{- $_ := set $tierOf $c -1 -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* routing.trafficSignal, checked with routing off too: the rules between its durations
(unset ones are the manager's defaults, 2s, 5s and 30s; a rule that names one that is not a
duration is left out, as the manager does) and its two token sources. The schema holds the
rest; where a template puts a name is the manager's to check, when it starts. */ -}}
{{- $ts := $r.trafficSignal -}}
{{- if and (kindIs "map" $ts) $ts -}}
{{- $prom := $ts.prometheus | default dict -}}
{{- $d := dict "timeout" 2000000000 "interval" 5000000000 "window" 30000000000 -}}
{{- $bad := dict -}}
{{- range $field := list (list "timeout" "prometheus.timeout" $prom.timeout) (list "interval" "interval" $ts.interval) (list "window" "window" $ts.window) -}}
{{- $key := index $field 0 }}{{ $name := index $field 1 }}{{ $v := index $field 2 -}}
{{- if $v -}}
{{- $ns := include "ome-resources.durationNs" $v -}}
{{- if eq $ns "invalid" -}}
{{- $p = append $p (include "ome-resources.notDuration" (list (printf "routing.trafficSignal.%s" $name) $v)) -}}
{{- $_ := set $bad $key true -}}
{{- else -}}
{{- $_ := set $d $key ($ns | int64) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $prom.bearerTokenSecret $prom.bearerTokenFile -}}
{{- $p = append $p (printf "%srouting.trafficSignal.prometheus: set bearerTokenSecret or bearerTokenFile, not both" $pre) -}}
{{- end -}}
{{- $timeout := $d.timeout }}{{ $interval := $d.interval }}{{ $window := $d.window -}}
{{- if and (not $bad.timeout) (not $bad.interval) (ge $timeout $interval) -}}
{{- $p = append $p (printf "%srouting.trafficSignal.prometheus.timeout (%s) must be less than routing.trafficSignal.interval (%s)" $pre (include "ome-resources.formatDuration" $timeout) (include "ome-resources.formatDuration" $interval)) -}}
{{- end -}}
{{- if and (not $bad.interval) (gt $minPeriod 0) (lt $interval $minPeriod) -}}
{{- $p = append $p (printf "%srouting.trafficSignal.interval (%s) must be at least routing.observer.minPeriod (%s)" $pre (include "ome-resources.formatDuration" $interval) (include "ome-resources.formatDuration" $minPeriod)) -}}
{{- end -}}
{{- if and (not $bad.interval) (not $bad.window) (lt $window $interval) -}}
{{- $p = append $p (printf "%srouting.trafficSignal.window (%s) must be at least routing.trafficSignal.interval (%s): each reading covers the time since the one before" $pre (include "ome-resources.formatDuration" $window) (include "ome-resources.formatDuration" $interval)) -}}
{{- end -}}
{{- if and (not $bad.window) (ne (mod $window 1000000000) 0) -}}
{{- $p = append $p (printf "%srouting.trafficSignal.window must be a whole number of seconds, got %s" $pre (include "ome-resources.formatDuration" $window)) -}}
{{- end -}}
{{- end -}}

{{- /* routing.loadBalancing: it reads the traffic signal, and moves no faster than it (the
manager's minInterval default is 30s, the signal's interval 5s). */ -}}
{{- $lb := $r.loadBalancing -}}
{{- if and (kindIs "map" $lb) $lb -}}
{{- $tsOn := and (kindIs "map" $ts) $ts -}}
{{- if not $tsOn -}}
{{- $p = append $p (printf "%srouting.loadBalancing needs the installation's routing.trafficSignal, which reads the model servers' load: it is not set" $pre) -}}
{{- else -}}
{{- $signalInterval := 5000000000 -}}
{{- with $ts.interval }}{{ $ns := include "ome-resources.durationNs" . }}{{ if ne $ns "invalid" }}{{ $signalInterval = $ns | int64 }}{{ end }}{{ end -}}
{{- $minInterval := 30000000000 -}}
{{- $minBad := false -}}
{{- with $lb.minInterval -}}
{{- $ns := include "ome-resources.durationNs" . -}}
{{- if eq $ns "invalid" -}}
{{- $p = append $p (include "ome-resources.notDuration" (list "routing.loadBalancing.minInterval" .)) -}}
{{- $minBad = true -}}
{{- else -}}
{{- $minInterval = $ns | int64 -}}
{{- end -}}
{{- end -}}
{{- if and (not $minBad) (lt $minInterval $signalInterval) -}}
{{- $p = append $p (printf "%srouting.loadBalancing.minInterval (%s) must be at least routing.trafficSignal.interval (%s): a share may not move faster than the signal that moves it" $pre (include "ome-resources.formatDuration" $minInterval) (include "ome-resources.formatDuration" $signalInterval)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* endpoint: a Gateway needs the port its routes send to; gateway features need a Gateway. */ -}}
{{- $e := $cfg.endpoint | default dict -}}
{{- $backend := $e.gatewayBackend | default dict -}}
{{- if and $e.globalGateway (not $e.backendPort) -}}
{{- $p = append $p (printf "%sendpoint.backendPort: must be set when endpoint.globalGateway is configured (%q)" $pre $e.globalGateway) -}}
{{- end -}}
{{- $tls := $backend.tls | default dict -}}
{{- $slices := $backend.endpointSlices | default dict -}}
{{- $refresh := $slices.addressRefreshInterval -}}
{{- if and $refresh (eq (include "ome-resources.durationNs" $refresh) "invalid") -}}
{{- $p = append $p (include "ome-resources.notDuration" (list "endpoint.gatewayBackend.endpointSlices.addressRefreshInterval" $refresh)) -}}
{{- end -}}
{{- if and (not $e.globalGateway) (or $backend.rewriteHostname $tls.enabled $slices.enabled) -}}
{{- $p = append $p (printf "%sendpoint.globalGateway: must be set when gateway backend features are enabled" $pre) -}}
{{- end -}}
{{- $ca := toString ($tls.wellKnownCACertificates | default "") -}}
{{- if and $tls.enabled (ne $ca "System") -}}
{{- $p = append $p (printf "%sendpoint.gatewayBackend.tls.wellKnownCACertificates: %q must be %q when enabled" $pre $ca "System") -}}
{{- else if and (not $tls.enabled) $ca -}}
{{- $p = append $p (printf "%sendpoint.gatewayBackend.tls.enabled: must be true when TLS settings are supplied" $pre) -}}
{{- end -}}
{{- if and $slices.enabled (not (hasKey $slices "addressRefreshInterval")) -}}
{{- $p = append $p (printf "%sendpoint.gatewayBackend.endpointSlices.addressRefreshInterval: must be set when enabled" $pre) -}}
{{- else if and (not $slices.enabled) (hasKey $slices "addressRefreshInterval") -}}
{{- $p = append $p (printf "%sendpoint.gatewayBackend.endpointSlices.enabled: must be true when EndpointSlice settings are supplied" $pre) -}}
{{- end -}}
{{- if and (eq (toString $e.globalHostAnnotation) "UnderNamespace") (not $e.globalHostTemplate) -}}
{{- $p = append $p (printf "%sendpoint.globalHostAnnotation: %q needs endpoint.globalHostTemplate, which gives each namespace its suffix" $pre "UnderNamespace") -}}
{{- end -}}
{{- if and $slices.enabled $backend.kind (ne (toString $backend.kind) "ExternalNameService") -}}
{{- $p = append $p (printf "%sendpoint.gatewayBackend.endpointSlices.enabled: needs gatewayBackend.kind %q, since EndpointSlices belong to Services" $pre "ExternalNameService") -}}
{{- end -}}
{{- join "\n" $p -}}
{{- end }}

{{/*
ome-resources.durationNs is a duration in the schema's form (such as 1m30s or 1.5s, at most
nine decimals) in nanoseconds, as time.ParseDuration reads it, or "invalid" when it is past
the largest time.Duration, which ParseDuration refuses. Whole numbers are compared as
19-digit strings before they are multiplied, and fractions worked out in integers, so
nothing wraps and no float rounds.
*/}}
{{- define "ome-resources.durationNs" -}}
{{- $units := dict "ns" 1 "us" 1000 "ms" 1000000 "s" 1000000000 "m" 60000000000 "h" 3600000000000 -}}
{{- /* The most whole units of each kind that a time.Duration holds. */ -}}
{{- $most := dict "ns" "9223372036854775807" "us" "0009223372036854775" "ms" "0000009223372036854" "s" "0000000009223372036" "m" "0000000000153722867" "h" "0000000000002562047" -}}
{{- $max := 9223372036854775807 -}}
{{- $total := 0 }}{{ $invalid := false -}}
{{- range regexFindAll "[0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h)" (toString .) -1 -}}
{{- $u := regexFind "(ns|us|ms|s|m|h)$" . }}{{ $unit := get $units $u -}}
{{- $whole := regexReplaceAll "^0+" (regexFind "^[0-9]+" .) "" -}}
{{- if or (gt (len $whole) 19) (gt (printf "%s%s" (repeat (sub 19 (len $whole) | int) "0") $whole) (get $most $u)) -}}
{{- $invalid = true -}}
{{- else -}}
{{- $part := mul (atoi $whole) $unit -}}
{{- $frac := regexFind "[0-9]+" (regexFind "\\.[0-9]+" .) -}}
{{- if $frac -}}
{{- $scale := int64 (printf "1%s" (repeat (len $frac) "0")) -}}
{{- $f := 0 -}}
{{- if eq (mod $unit $scale) 0 }}{{ $f = mul (atoi $frac) (div $unit $scale) }}{{ else }}{{ $f = div (mul (atoi $frac) $unit) $scale }}{{ end -}}
{{- if gt $part (sub $max $f) }}{{ $invalid = true }}{{ else }}{{ $part = add $part $f }}{{ end -}}
{{- end -}}
{{- if gt $total (sub $max $part) }}{{ $invalid = true }}{{ else }}{{ $total = add $total $part }}{{ end -}}
{{- end -}}
{{- end -}}
{{- if $invalid }}invalid{{ else }}{{ $total }}{{ end -}}
{{- end }}

{{/* ome-resources.notDuration is the manager's line for (list path value) that is not a duration. */}}
{{- define "ome-resources.notDuration" -}}
invalid multi-cluster configuration: {{ index . 0 }}: {{ printf "%q" (index . 1) }} is not a duration (use forms like "30s", "5m")
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
