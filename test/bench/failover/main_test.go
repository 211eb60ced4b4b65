package failover

import (
	"testing"

	"github.com/ome-routing/operator/test/framework"
)

// TestMain keeps the manager's and the plugin's binaries, when this process built them, until
// every test is done (framework.Main): TestFailover and TestPassiveGateOutage each start the
// data plane with them, one after the other, in the one process make bench-failover runs.
func TestMain(m *testing.M) { framework.Main(m) }
