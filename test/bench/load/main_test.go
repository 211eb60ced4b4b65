package load

import (
	"testing"

	"github.com/ome-routing/operator/test/framework"
)

// TestMain keeps the manager's and the plugin's binaries, when this process built them, until
// every test is done (framework.Main): TestLoadBalancing starts the data plane with them.
func TestMain(m *testing.M) { framework.Main(m) }
