package ucp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// ajvModulesDir is where make bench installs ajv 8 and ajv-formats from npm
// (testdata/ajv/install); SVC_AJV_MODULES overrides it. The benchmark never
// installs anything itself.
func ajvModulesDir() string {
	if d := os.Getenv("SVC_AJV_MODULES"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "svc-ajv", "node_modules")
}

// ajvResult is what testdata/ajv/bench.js prints.
type ajvResult struct {
	Ajv         string  `json:"ajv"`
	AjvFormats  string  `json:"ajv_formats"`
	Node        string  `json:"node"`
	Validations int     `json:"validations"`
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	Verdicts    []struct {
		Valid  *bool  `json:"valid"`
		Errors int    `json:"errors"`
		First  string `json:"first"`
	} `json:"verdicts"`
}

// ajvBenchRound is how long each side validates in one round.
const ajvBenchRound = 2 * time.Second

// ajvBenchRounds alternate ajv and svc; the median ratio is reported.
const ajvBenchRounds = 3

// BenchmarkValidateVsAjv compares the JSON Schema validation of UCP business
// profiles against ajv 8 (the validator ../shared/ucp/RULES.md section 3
// takes the examples' verdicts from) on the same profiles, one core each,
// in one run: validations per CPU second of svc's Validate (the JSON Schema
// check and every spec rule, and the report) over ajv's JSON.parse plus
// validate (the JSON Schema alone, allErrors, as svc lists every error).
// Both sides are warm: schemas compiled once beforehand, compile time in
// neither figure. CPU time is the whole process's on both sides (Node's JIT
// and GC threads, Go's GC), so a shared machine's other load does not count.
// Two profile sets: full-valid.json alone (a complete profile), and every
// example of the manifest in turn (mostly invalid, small). The ajv verdicts
// must equal svc's JSON Schema verdicts file by file, or the benchmark fails.
// Target: svc >= 2x ajv. Run with -cpu 1 -benchtime 1x (make bench does).
func BenchmarkValidateVsAjv(b *testing.B) {
	v := testValidator(b)
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("no node: ajv cannot run")
	}
	modules := ajvModulesDir()
	if _, err := os.Stat(filepath.Join(modules, "ajv", "package.json")); err != nil {
		b.Skipf("no ajv under %s: make bench installs it (pipeline/ucp/testdata/ajv/install)", modules)
	}
	var all []string
	for _, f := range readManifest(b) {
		all = append(all, f.File)
	}
	for _, set := range []struct {
		name  string
		files []string
	}{{"full-valid", []string{"full-valid.json"}}, {"examples", all}} {
		b.Run(set.name, func(b *testing.B) {
			var docs [][]byte
			var paths []string
			for _, f := range set.files {
				docs = append(docs, readExample(b, f))
				paths = append(paths, filepath.Join(examplesDir(), f))
			}
			ours := make([]bool, len(docs))
			for i, d := range docs {
				r, err := v.Validate(context.Background(), d)
				if err != nil || r.Schema.Valid == nil {
					b.Fatalf("%s: no JSON Schema verdict: %v", set.files[i], err)
				}
				ours[i] = *r.Schema.Valid
			}
			set0 := v.set.Load()
			var ratios, svcRates, ajvRates, schemaRatios []float64
			var last ajvResult
			for round := 0; round < ajvBenchRounds; round++ {
				a := runAjv(b, node, modules, paths)
				for i, verdict := range a.Verdicts {
					if verdict.Valid == nil || *verdict.Valid != ours[i] {
						b.Fatalf("%s: ajv says valid=%v (%s), svc's JSON Schema check says %v", set.files[i], verdict.Valid, verdict.First, ours[i])
					}
				}
				ajvRate := float64(a.Validations) / a.CPUSeconds
				n, cpu := validateFor(b, v, docs, ajvBenchRound)
				svcRate := float64(n) / cpu.Seconds()
				ns, cpus := schemaFor(b, set0, docs, ajvBenchRound)
				schemaRatios = append(schemaRatios, float64(ns)/cpus.Seconds()/ajvRate)
				ratios = append(ratios, svcRate/ajvRate)
				svcRates = append(svcRates, svcRate)
				ajvRates = append(ajvRates, ajvRate)
				last = a
			}
			ratio := median(ratios)
			fmt.Printf("UCP validation, %s (%d profiles, one core, warm): svc %.0f validations/cpu-s, ajv %s (ajv-formats %s, node %s, allErrors) %.0f; svc/ajv median %.2f over %d rounds (min %.2f, max %.2f; target >= 2: %s); verdicts identical\n",
				set.name, len(docs), median(svcRates), last.Ajv, last.AjvFormats, last.Node, median(ajvRates), ratio, ajvBenchRounds, slices.Min(ratios), slices.Max(ratios), metOr(ratio, 2))
			fmt.Printf("  the JSON Schema part alone (parse and schema check, the work ajv does): svc/ajv median %.2f (target >= 2: %s)\n", median(schemaRatios), metOr(median(schemaRatios), 2))
			b.ReportMetric(median(schemaRatios), "schema-only-svc/ajv")
			b.ReportMetric(median(svcRates), "validations/cpu-s")
			b.ReportMetric(median(ajvRates), "ajv-validations/cpu-s")
			b.ReportMetric(ratio, "svc/ajv")
		})
	}
}

// runAjv runs testdata/ajv/bench.js for one round over the files.
func runAjv(b *testing.B, node, modules string, files []string) ajvResult {
	b.Helper()
	args := []string{filepath.Join("testdata", "ajv", "bench.js"), modules,
		filepath.Join(schemaDir(), TargetRelease), BusinessEntryPoint,
		fmt.Sprint(ajvBenchRound.Seconds()), "1"}
	cmd := exec.Command(node, append(args, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("ajv: %v\n%s", err, stderr.String())
	}
	var r ajvResult
	if err := json.Unmarshal(out, &r); err != nil {
		b.Fatalf("ajv output %q: %v", strings.TrimSpace(string(out)), err)
	}
	if len(r.Verdicts) != len(files) || r.Validations == 0 || r.CPUSeconds <= 0 {
		b.Fatalf("ajv output incomplete: %s", out)
	}
	return r
}

// validateFor validates docs in turn for about d of wall time, as bench.js
// does, and returns the validations and the CPU time they took.
func validateFor(b *testing.B, v *Validator, docs [][]byte, d time.Duration) (int, time.Duration) {
	b.Helper()
	ctx := context.Background()
	for _, doc := range docs { // warm
		if _, err := v.Validate(ctx, doc); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	cpu0 := cpuTime()
	start := time.Now()
	for time.Since(start) < d {
		for i := 0; i < 20*len(docs); i++ {
			if _, err := v.Validate(ctx, docs[i%len(docs)]); err != nil {
				b.Fatal(err)
			}
		}
		n += 20 * len(docs)
	}
	return n, cpuTime() - cpu0
}

// schemaFor is validateFor for the JSON Schema check alone: the parse and
// the schema's verdict with its errors, no spec rules, no report.
func schemaFor(b *testing.B, set *schemaSet, docs [][]byte, d time.Duration) (int, time.Duration) {
	b.Helper()
	one := func(raw []byte) {
		var fs findings
		doc, _, maps, err := parseDocument(raw, &fs)
		if err != nil {
			b.Fatal(err)
		}
		schemaCheck(set.business, doc, &fs)
		maps.recycle()
	}
	for _, doc := range docs {
		one(doc)
	}
	n := 0
	cpu0 := cpuTime()
	start := time.Now()
	for time.Since(start) < d {
		for i := 0; i < 20*len(docs); i++ {
			one(docs[i%len(docs)])
		}
		n += 20 * len(docs)
	}
	return n, cpuTime() - cpu0
}

// metOr says whether ratio reaches target.
func metOr(ratio, target float64) string {
	if ratio >= target {
		return "met"
	}
	return "NOT met"
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
