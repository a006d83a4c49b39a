package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// svc serve --state postgres://… that cannot connect fails at start with a
// message naming the state, and never echoes the password.
func TestServeStateUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	url := "postgres://svc:hunter2-secret@/svc?host=" + t.TempDir() + "&connect_timeout=2"
	code := Run(ctx, []string{"serve", "--data", t.TempDir(), "--addr", "127.0.0.1:0", "--state", url}, &out, &errOut)
	msg := out.String() + errOut.String()
	if code == 0 || !strings.Contains(msg, "open state") {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if strings.Contains(msg, "hunter2") {
		t.Fatalf("the password is in the error: %s", msg)
	}
}
