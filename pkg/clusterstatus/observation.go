package clusterstatus

// The states of one read of the WorkloadClusters, as a whole.
const (
	// ObservationComplete: every cluster was read, and there is at least one.
	ObservationComplete = "Complete"
	// ObservationEmpty: the read completed and found no cluster.
	ObservationEmpty = "Empty"
	// ObservationPartial: some clusters were read, then an error or the budget stopped
	// the read; the rest are not shown and nothing is said of them.
	ObservationPartial = "Partial"
	// ObservationUnavailable: nothing was read.
	ObservationUnavailable = "Unavailable"
)

// BudgetExceeded is the reason of a read stopped by its budget with clusters left.
const BudgetExceeded = "PageBudgetExceeded"

// Observation is what one bounded read of the WorkloadClusters amounts to.
type Observation struct {
	State string
	// Reason says why State is Partial or Unavailable: the failed request's reason
	// (Forbidden, Timeout, ...) or PageBudgetExceeded; empty otherwise.
	Reason string
	// Truncated is true when clusters may exist that the read did not return.
	Truncated bool
}

// Observe judges a read that returned some clusters in pages pages, with more clusters
// left when more is true, and stopped by a failed request when failure (its reason) is
// not empty.
func Observe(returned, pages int, more bool, failure string) Observation {
	switch {
	case failure != "" && pages == 0:
		return Observation{State: ObservationUnavailable, Reason: failure}
	case failure != "":
		return Observation{State: ObservationPartial, Reason: failure, Truncated: true}
	case more:
		return Observation{State: ObservationPartial, Reason: BudgetExceeded, Truncated: true}
	case returned == 0:
		return Observation{State: ObservationEmpty}
	}
	return Observation{State: ObservationComplete}
}
