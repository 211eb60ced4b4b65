// Package trafficmap builds a service's TrafficMap entries and its Routable condition
// from its homes, their probe states and the probe policy, as pure functions: the weight
// algorithm lives here and nowhere else.
//
// Build takes the homes in any order and returns entries sorted by cluster name, so the
// same inputs always give the same table and the writer can compare it with the stored one.
// ParseCapacityFactors reads the service's factors under the CRD's rules before Build;
// Build still keeps every weight within 0..MaxWeight if it is handed a factor that is not
// positive (that home gets 0).
//
// # Weights and rounding
//
// A home's servable capacity is min(allocated, ready) times its capacity factor (1 when
// none is set), and 0 while the probe gates it, unless every home is gated and the policy
// is PreserveTraffic. Rounding happens in two places, both as OME's own weight function
// does it, so that a map computed by either has the same weights. First, a factor is held
// as a whole number of thousandths, rounded up ("0.0005" counts as 0.001, "1.0001" as
// 1.001); capacity is then exact. The capacities are divided by their greatest common
// divisor, which gives the smallest whole-number ratio. Second, when the largest reduced
// weight is above MaxWeight, every positive weight is scaled to ceil(w * MaxWeight /
// largest): the largest becomes exactly MaxWeight, a home with capacity keeps at least 1
// (it is never silently drained by rounding), and the scaled table is not reduced again.
// Factors are capped at 2^63-1, the largest value a Quantity documents, so an absurd
// factor cannot make the arithmetic unbounded.
//
// A home that ramps up after its gate lifted (probe.rampPercent, under the probe's rampUp)
// has that percentage of its servable capacity, before the reduction; every other home
// counts at 100 percent, which leaves a table without a ramp exactly as it was. A Shadow
// probe's record has wouldGate instead of gated and no ramp, so Build treats it as no
// probe at all.
//
// Healthy is a ready replica and no gate. It reports the home, not the policy: under
// PreserveTraffic a gated home takes traffic and still shows healthy false.
//
// # What the status tells readers
//
// Ramping, NewestProbeTime and RouteGeneration (views.go) give the status fields that let a
// reader judge the map without the manager's settings or the map's past versions: how many
// homes ramp, when a probe was last recorded, and at which generation the route last
// changed, which most generations (probe rounds that move only records) do not.
//
// # The Routable condition
//
// The condition is derived from the finished entries, and is True exactly when some
// weight is positive. Which reason wins when several apply is set out in one place,
// docs/concepts/how-it-decides.md (Routable); TestBuildRoutable holds the code to it.
package trafficmap
