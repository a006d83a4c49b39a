package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a throwaway PostgreSQL server of one test, on a unix socket in
// its own folder, which the test may stop and start again (fault tests)
// without disturbing the server of SVC_TEST_POSTGRES. It is started as
// .ci/postgres starts the CI one: initdb and pg_ctl of Debian's newest
// /usr/lib/postgresql/*/bin, as the postgres user when the test runs as
// root (initdb refuses root).
type Cluster struct {
	t    testing.TB
	bin  string
	dir  string   // the folder: data/, the socket, server.log
	run  []string // the command prefix that runs as the cluster's owner
	opts string   // the server options of every start
}

// NewCluster initialises and starts a cluster, stopped and removed when the
// test ends. Without PostgreSQL's binaries the test skips, except under
// CI=true, where it fails: .ci/postgres installs them.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bin := serverBin()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin under CI=true: .ci/postgres installs Debian's postgresql")
		}
		t.Skip("needs PostgreSQL's server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin: apt-get install postgresql, or run .ci/postgres once")
	}
	c := &Cluster{t: t, bin: bin}
	dir, err := os.MkdirTemp("", "svc-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	t.Cleanup(func() {
		c.pgctl("stop", "-m", "immediate") // an error: it was stopped already
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("running as root without a postgres user under CI=true: .ci/postgres creates it")
			}
			t.Skip("runs as root without a postgres user for initdb (which refuses root): run .ci/postgres once")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.run = []string{"runuser", "-u", "postgres", "--"}
	}
	if len(dir) > 90 { // a unix socket path holds at most 107 bytes
		t.Fatalf("cluster folder %s: too long a path for the socket", dir)
	}
	c.opts = fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories='%s' -c fsync=on -c max_connections=100", dir)
	if out, err := c.cmd("initdb", "-D", c.data(), "-U", "svc", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.Start()
	return c
}

// serverBin is the newest /usr/lib/postgresql/*/bin with initdb, or "".
func serverBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	return ""
}

func version(bin string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return v
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) cmd(prog string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, c.run...), filepath.Join(c.bin, prog)), args...)
	return exec.Command(argv[0], argv[1:]...)
}

func (c *Cluster) pgctl(args ...string) ([]byte, error) {
	return c.cmd("pg_ctl", append([]string{"-D", c.data()}, args...)...).CombinedOutput()
}

// URL is the cluster's postgres database, as the svc user (trusted).
func (c *Cluster) URL() string {
	return "postgres://svc@/postgres?host=" + c.dir + "&sslmode=disable"
}

// Database creates a database on the cluster and returns its URL.
func (c *Cluster) Database(name string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		c.t.Fatalf("connect to the test cluster: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		c.t.Fatalf("create database %s: %v", name, err)
	}
	return strings.Replace(c.URL(), "/postgres?", "/"+name+"?", 1)
}

// Stop stops the server with pg_ctl's mode: "fast" (sessions are ended,
// transactions in flight rolled back) or "immediate" (the server quits at
// once, as a crash; the next start recovers from the WAL).
func (c *Cluster) Stop(mode string) {
	c.t.Helper()
	if out, err := c.pgctl("stop", "-w", "-t", "60", "-m", mode); err != nil {
		c.t.Fatalf("pg_ctl stop -m %s: %v\n%s", mode, err, out)
	}
}

// Start starts the server and waits until it takes connections.
func (c *Cluster) Start() {
	c.t.Helper()
	log := filepath.Join(c.dir, "server.log")
	if out, err := c.pgctl("start", "-w", "-t", "60", "-l", log, "-o", c.opts); err != nil {
		b, _ := os.ReadFile(log)
		c.t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, b)
	}
}
