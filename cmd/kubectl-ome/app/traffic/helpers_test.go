package traffic

import (
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

var (
	errOutputForTest = util.ErrOutput
	errDryRunForTest = util.ErrDryRun
	targetForTest    = util.Target{Namespace: "prod", Context: "hub"}
)
