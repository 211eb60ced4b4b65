package framework

import "github.com/ome-routing/operator/config/samples"

// GuideProbe is samples.GuideProbe: the routing guide's Step 1 probe with the given period,
// timeout and all-failed policy, the probe every suite and the bench start from.
var GuideProbe = samples.GuideProbe
