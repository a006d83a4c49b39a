package leaderboard

import "math"

// Z95 is the normal quantile of a two-sided 95 % interval.
const Z95 = 1.96

// Wilson returns the Wilson score interval of k successes in n trials at
// normal quantile z (SIGNALS.md):
//
//	(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n),  p̂ = k/n
//
// clamped to [0, 1]. ok is false when n is 0: there is no interval.
func Wilson(k, n int, z float64) (low, high float64, ok bool) {
	if n <= 0 || k < 0 || k > n {
		return 0, 0, false
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	centre := p + z2/(2*nf)
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	den := 1 + z2/nf
	low = math.Max(0, (centre-half)/den)
	high = math.Min(1, (centre+half)/den)
	if k == 0 {
		low = 0
	}
	if k == n {
		high = 1
	}
	return low, high, true
}

// round3 rounds to 3 decimals, the precision every published rate and
// bound has.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
