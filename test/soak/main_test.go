package soak

import (
	"testing"

	"github.com/ome-routing/operator/test/framework"
)

// TestMain removes the manager's binary when the soak built one (framework.Main).
func TestMain(m *testing.M) { framework.Main(m) }
