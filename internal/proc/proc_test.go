package proc

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while the process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond for up to a minute: a bound on a loaded machine, not a timing claim.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStopEndsAProcessThatHonoursSIGTERM(t *testing.T) {
	log := &syncBuffer{}
	file := filepath.Join(t.TempDir(), "out.log")
	// The shell says it is ready, then exits 0 on SIGTERM, saying so.
	p, err := Start(exec.Command("sh", "-c", `trap 'echo terminated; exit 0' TERM; echo ready; while :; do sleep 0.05; done`),
		Options{Name: "the shell", Log: log, LogFile: file})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the shell to be ready", func() bool { return strings.Contains(log.String(), "ready") })
	if p.Exited() {
		t.Fatal("Exited says the running shell exited")
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !p.Exited() || p.Wait() != nil {
		t.Fatalf("after Stop: exited %t, Wait %v; want exited with status 0", p.Exited(), p.Wait())
	}
	if got := log.String(); got != "ready\nterminated\n" {
		t.Errorf("Log got %q", got)
	}
	if got := p.Tail(1); got != "terminated" {
		t.Errorf("Tail(1) of the log file = %q, want the last line", got)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

func TestStopKillsTheGroupOfAProcessThatIgnoresSIGTERM(t *testing.T) {
	log := &syncBuffer{}
	var beforeKill bool
	// The shell and its child both ignore SIGTERM; the child prints its pid.
	p, err := Start(exec.Command("sh", "-c", `trap '' TERM; sh -c 'trap "" TERM; echo child $$; while :; do sleep 0.05; done' & wait`),
		Options{Name: "the stubborn shell", Log: log, Group: true, StopTimeout: 200 * time.Millisecond,
			BeforeKill: func(p *Process) { beforeKill = !p.Exited() }})
	if err != nil {
		t.Fatal(err)
	}
	var child int
	waitFor(t, "the child to start", func() bool {
		f := strings.Fields(log.String())
		if len(f) == 2 {
			child, _ = strconv.Atoi(f[1])
		}
		return child > 0
	})
	err = p.Stop()
	if err == nil || err.Error() != "the stubborn shell did not stop within 200ms of SIGTERM and was killed" {
		t.Fatalf("Stop = %v, want the kill said", err)
	}
	if !beforeKill {
		t.Error("BeforeKill did not run while the process still ran")
	}
	var exit *exec.ExitError
	if !errors.As(p.Wait(), &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("Wait = %v, want killed by SIGKILL", p.Wait())
	}
	// The child was in the group: it is gone too (reaped by init, so poll).
	waitFor(t, "the child to be gone", func() bool {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
		return err != nil || strings.Contains(string(stat), ") Z ")
	})
}

func TestStartSaysWhichProcessDidNotStart(t *testing.T) {
	_, err := Start(exec.Command(filepath.Join(t.TempDir(), "missing")), Options{Name: "the manager"})
	if err == nil || !strings.HasPrefix(err.Error(), "start the manager: ") {
		t.Fatalf("Start = %v, want an error naming the manager", err)
	}
}

func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("one\n\ntwo\nthree\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := Tail(path, 2); got != "two\nthree" {
		t.Errorf("Tail(2) = %q", got)
	}
	if got := Tail(path, 10); got != "one\ntwo\nthree" {
		t.Errorf("Tail(10) = %q", got)
	}
	if got := Tail(filepath.Join(t.TempDir(), "none"), 2); !strings.Contains(got, "no such file") {
		t.Errorf("Tail of a missing file = %q", got)
	}
}
