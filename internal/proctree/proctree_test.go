package proctree

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// TestDescendants starts a shell that starts a sleep: both are found under
// this process, and neither when the shell is skipped.
func TestDescendants(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var got []int
	for range 100 { // the shell starts its sleep a moment later
		if got = Descendants(os.Getpid(), 0); len(got) >= 3 {
			break
		}
		exec.Command("sleep", "0.02").Run()
	}
	if len(got) < 3 || got[0] != os.Getpid() || !slices.Contains(got, cmd.Process.Pid) {
		t.Fatalf("Descendants = %v, want this process, the shell %d and its sleep", got, cmd.Process.Pid)
	}
	if skipped := Descendants(os.Getpid(), cmd.Process.Pid); len(skipped) != len(got)-2 || slices.Contains(skipped, cmd.Process.Pid) {
		t.Errorf("skipping the shell: %v, want %v without the shell and its sleep", skipped, got)
	}
}
