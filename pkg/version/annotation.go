package version

import "sync"

// Annotation on every object the manager writes (TrafficMaps, published routes and
// backends) names the release that wrote it last, so that after an upgrade `kubectl get -o
// yaml` shows which objects the new release has already rewritten. Its value is Get().Version.
const Annotation = "ome.io/operator-version"

// Stamp is the value the manager writes into Annotation. It is read from the build
// information once: every TrafficMap write and every published object asks for it.
var Stamp = sync.OnceValue(func() string { return Get().Version })
