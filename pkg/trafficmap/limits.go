package trafficmap

import "fmt"

// The sizes of a map's lists, the CRD's maxItems. They keep a map at its maxima within one
// etcd write (test/crdsize adds it up).
const (
	// MaxEntries is the most homes a map holds. A service with more is refused, so that
	// no write of its map fails half way: the map stays as it was and says why.
	MaxEntries = 64
	// MaxExcludedClusters is the most excluded clusters the status lists, the first by
	// name; status.noTraffic counts the rest.
	MaxExcludedClusters = 192
)

// CheckHomes refuses a service with more homes than a map holds. Writing such a map would
// fail at the API server on every try; refusing it freezes the map as it is, with this
// error in its SettingsAccepted condition.
func CheckHomes(homes int) error {
	if homes > MaxEntries {
		return fmt.Errorf("the service has %d homes, and a TrafficMap holds at most %d (spec.entries maxItems)", homes, MaxEntries)
	}
	return nil
}
