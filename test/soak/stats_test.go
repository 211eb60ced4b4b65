package soak

import "time"

// ms is a duration for the report, to the millisecond (test/framework/stats computes the
// figures).
func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }
