package leaderboard

import "testing"

// TestWilsonCheckValues holds Wilson to the check values of SIGNALS.md.
func TestWilsonCheckValues(t *testing.T) {
	for _, c := range []struct {
		k, n      int
		low, high float64
	}{
		{50, 100, 0.404, 0.596},
		{0, 100, 0, 0.037},
		{88, 100, 0.802, 0.930},
		{100, 100, 0.963, 1},
	} {
		lo, hi, ok := Wilson(c.k, c.n, Z95)
		if !ok || round3(lo) != c.low || round3(hi) != c.high {
			t.Errorf("Wilson(%d/%d) = [%.4f, %.4f] %v, want [%.3f, %.3f]", c.k, c.n, lo, hi, ok, c.low, c.high)
		}
	}
	if _, _, ok := Wilson(0, 0, Z95); ok {
		t.Error("Wilson(0/0) gave an interval")
	}
	if _, _, ok := Wilson(3, 2, Z95); ok {
		t.Error("Wilson(3/2) gave an interval")
	}
	// The interval always holds the point estimate and stays in [0, 1].
	for n := 1; n <= 120; n++ {
		for k := 0; k <= n; k++ {
			lo, hi, _ := Wilson(k, n, Z95)
			p := float64(k) / float64(n)
			if lo < 0 || hi > 1 || lo > p+1e-12 || hi < p-1e-12 {
				t.Fatalf("Wilson(%d/%d) = [%v, %v] does not hold %v", k, n, lo, hi, p)
			}
		}
	}
}
