package ucp

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkValidateFullValid measures validations per second of
// full-valid.json with the schemas compiled once (run with -cpu 1 for one
// core; make bench does).
func BenchmarkValidateFullValid(b *testing.B) {
	v := testValidator(b)
	profile := readExample(b, "full-valid.json")
	ctx := context.Background()
	if r, err := v.Validate(ctx, profile); err != nil || !r.IsValid() {
		b.Fatalf("full-valid.json is not valid: %v %s", err, mustJSON(r))
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(profile)))
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := v.Validate(ctx, profile); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "validations/s")
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "validations/cpu-s")
}

// cpuTime is the CPU time this process has used. On a shared machine the
// wall clock also counts the time other processes held the core; CPU time
// per validation is what one core of our own would do.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkValidateExamples measures validations per second over every
// example of the manifest in turn (most are invalid, so the schema library
// builds their errors), with the schemas compiled once.
func BenchmarkValidateExamples(b *testing.B) {
	v := testValidator(b)
	var docs [][]byte
	for _, f := range readManifest(b) {
		docs = append(docs, readExample(b, f.File))
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := v.Validate(ctx, docs[i%len(docs)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "validations/cpu-s")
}
