package observer

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// BenchmarkSlots measures the cap alone, one acquire and release per op: uncontended (what
// every request pays when the observer is not saturated), and with more goroutines than
// slots spread over a few tenants, so that most acquires queue and are handed a unit.
func BenchmarkSlots(b *testing.B) {
	b.Run("uncontended", func(b *testing.B) {
		s := newSlots(64)
		b.ReportAllocs()
		for b.Loop() {
			if err := s.acquire(b.Context(), owner{tenant: "svc"}); err != nil {
				b.Fatal(err)
			}
			s.release(owner{tenant: "svc"})
		}
	})
	b.Run("contended", func(b *testing.B) {
		s := newSlots(2)
		var next atomic.Int64
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			tenant := fmt.Sprintf("svc-%d", next.Add(1)%4)
			for pb.Next() {
				if err := s.acquire(b.Context(), owner{tenant: tenant}); err != nil {
					b.Error(err)
					return
				}
				s.release(owner{tenant: tenant})
			}
		})
	})
}
