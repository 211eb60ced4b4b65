package publish

import (
	"fmt"
	"slices"
	"strings"
)

// CheckOptions refuses publisher options: the built-in publisher accepts none. scope says
// where they were set ("global" for routing.publisher.options).
func CheckOptions(scope string, options map[string]string) error {
	if len(options) == 0 {
		return nil
	}
	keys := make([]string, 0, len(options))
	for k := range options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return fmt.Errorf("Gateway API publisher does not accept %s options: %s", scope, strings.Join(keys, ", "))
}
