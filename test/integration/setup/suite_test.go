package setup

import (
	"testing"

	"github.com/ome-routing/operator/test/suite"
)

func TestSetup(t *testing.T) {
	suite.Run(t, "Integration set-up suite")
}
