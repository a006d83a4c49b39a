// Package pgtest gives tests a fresh PostgreSQL database on the server
// named by SVC_TEST_POSTGRES (.ci/postgres starts one). Without it a test
// skips, except under CI=true, where it fails: CI must run these tests.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the admin URL of the test server.
const Env = "SVC_TEST_POSTGRES"

// URL creates an empty database for the test, dropped when it ends, and
// returns its URL.
func URL(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(Env)
	if admin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is unset under CI=true: .ci/run starts PostgreSQL for these tests (.ci/postgres)", Env)
		}
		t.Skipf("needs PostgreSQL: set %s=postgres://… (eval \"$(.ci/postgres)\" starts one)", Env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to %s: %v", Env, err)
	}
	defer conn.Close(context.Background())
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "svc_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	u.Path = "/" + name
	return u.String()
}
