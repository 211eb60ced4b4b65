package stats

import (
	"slices"
	"testing"
	"time"
)

func TestMedianTakesTheMiddleOrTheMeanOfTheTwoMiddleOnes(t *testing.T) {
	odd := []time.Duration{5, 1, 3}
	if got := Median(odd); got != 3 {
		t.Errorf("Median(%v) = %v, want 3", odd, got)
	}
	if !slices.Equal(odd, []time.Duration{5, 1, 3}) {
		t.Errorf("Median sorted its argument: %v", odd)
	}
	if got := Median([]time.Duration{4, 1, 2, 3}); got != 2 {
		t.Errorf("Median of 1..4 durations = %v, want 2 (2.5 rounded down)", got)
	}
	if got := Median([]int{10, 20}); got != 15 {
		t.Errorf("Median of 10 and 20 = %d, want 15", got)
	}
	if got := Median([]float64{1, 2}); got != 1.5 {
		t.Errorf("Median of 1.0 and 2.0 = %v, want 1.5", got)
	}
	if got := Median[int](nil); got != 0 {
		t.Errorf("Median of nothing = %d, want 0", got)
	}
}

func TestQuantileIsByTheNearestRank(t *testing.T) {
	ds := []time.Duration{4, 1, 3, 2}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0, 1}, {0.25, 1}, {0.5, 2}, {0.9, 4}, {0.99, 4}, {1, 4}} {
		if got := Quantile(ds, c.q); got != c.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", ds, c.q, got, c.want)
		}
	}
	if got := Quantile([]time.Duration{7}, 0.99); got != 7 {
		t.Errorf("Quantile of one value = %v, want it", got)
	}
	if got := Quantile[time.Duration](nil, 0.5); got != 0 {
		t.Errorf("Quantile of nothing = %v, want 0", got)
	}
}

func TestMaxIsZeroForNothing(t *testing.T) {
	if got := Max([]int{3, 9, 1}); got != 9 {
		t.Errorf("Max = %d, want 9", got)
	}
	if got := Max[time.Duration](nil); got != 0 {
		t.Errorf("Max of nothing = %v, want 0", got)
	}
}

func TestSlopeFitsALine(t *testing.T) {
	if got := Slope([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}); got != 2 {
		t.Errorf("slope of y = 2x+1: %v", got)
	}
	if got := Slope([]float64{0, 1, 2}, []float64{1, 0, 1}); got != 0 {
		t.Errorf("slope of a symmetric V: %v", got)
	}
	for _, c := range []struct{ xs, ys []float64 }{
		{[]float64{1}, []float64{1}},
		{[]float64{1, 2}, []float64{1}},
		{[]float64{2, 2}, []float64{1, 5}},
	} {
		if got := Slope(c.xs, c.ys); got != 0 {
			t.Errorf("Slope(%v, %v) = %v, want 0", c.xs, c.ys, got)
		}
	}
}
