// Package stats holds the few statistics the bench and the soak report their figures with:
// the median, a quantile by the nearest rank, the largest value, and a least-squares slope.
// Each takes its values in any order and leaves the slice as it was.
package stats

import "slices"

// Number is what the statistics are taken of: counts, durations, rates.
type Number interface {
	~int | ~int32 | ~int64 | ~uint64 | ~float64
}

// Median is the middle value of vs, the mean of the two middle ones for an even count (in
// vs's own type, so an integer mean rounds down); 0 for none.
func Median[T Number](vs []T) T {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Quantile is the q-quantile (q from 0 to 1) of vs by the nearest rank: a value vs holds,
// never one between two; 0 for none.
func Quantile[T Number](vs []T, q float64) T {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Max is the largest value of vs; 0 for none.
func Max[T Number](vs []T) T {
	if len(vs) == 0 {
		return 0
	}
	return slices.Max(vs)
}

// Slope is the least-squares slope of ys over xs, per unit of x; 0 with fewer than two
// points, with xs and ys of different lengths, or with every x the same.
func Slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
