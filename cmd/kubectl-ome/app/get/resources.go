package get

// This file owns the resource names `get` accepts and its refusals of the arguments.

import (
	"fmt"
	"strings"
)

// resource is the one resource `get` lists: its plural, which output and messages use,
// and the other names it answers to (the CRD's singular and short names).
const resource = "trafficmaps"

// resourceNames are the names `get` accepts for it, in the order completion offers them.
var resourceNames = []string{resource, "trafficmap", "tm", "tmap"}

// validResources is the list an unknown or missing resource is refused with.
var validResources = "valid resources: " + strings.Join(resourceNames, ", ")

// checkResource accepts one of resourceNames and refuses anything else, listing them.
func checkResource(name string) error {
	for _, n := range resourceNames {
		if name == n {
			return nil
		}
	}
	return fmt.Errorf("unknown resource %q (%s)", name, validResources)
}
