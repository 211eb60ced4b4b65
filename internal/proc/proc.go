package proc

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultStopTimeout is how long Stop waits after SIGTERM when Options.StopTimeout is zero:
// the manager, HAProxy Ingress and Prometheus each stop within a few seconds.
const DefaultStopTimeout = 10 * time.Second

// Options say how to run a command.
type Options struct {
	// Name names the process in errors: "the manager", "HAProxy Ingress".
	Name string
	// Log receives the process's stdout and stderr; discarded when nil.
	Log io.Writer
	// LogFile, when set, is created and receives the output too; Tail reads its end.
	LogFile string
	// Group puts the process in a process group of its own: a Ctrl-C in the terminal does
	// not reach it, and Kill (and Stop past its timeout) kills the group, the children the
	// process started included.
	Group bool
	// DieWithParent makes the kernel send the process SIGTERM should this process die
	// without stopping it (Linux only), so that no child outlives a killed test.
	DieWithParent bool
	// StopTimeout bounds the wait after SIGTERM; DefaultStopTimeout when zero.
	StopTimeout time.Duration
	// BeforeKill, when set, runs when the process has not stopped within StopTimeout,
	// before it is killed: a Go program asked for SIGQUIT prints where it is stuck.
	BeforeKill func(p *Process)
}

// Process is a running (or exited) child process.
type Process struct {
	opts Options
	cmd  *exec.Cmd
	done chan struct{}
	err  error // what Wait returned, set before done closes
	log  *os.File
	mu   sync.Mutex
}

// Start starts cmd, whose path, arguments, environment and folder the caller has set,
// with its output going where opts say. The returned Process must be stopped (Stop or
// Kill) or waited for.
func Start(cmd *exec.Cmd, opts Options) (*Process, error) {
	if opts.Name == "" {
		opts.Name = cmd.Path
	}
	if opts.StopTimeout == 0 {
		opts.StopTimeout = DefaultStopTimeout
	}
	p := &Process{opts: opts, cmd: cmd, done: make(chan struct{})}
	out := opts.Log
	if out == nil {
		out = io.Discard
	}
	if opts.LogFile != "" {
		f, err := os.Create(opts.LogFile)
		if err != nil {
			return nil, err
		}
		p.log = f
		out = io.MultiWriter(f, out)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr(opts)
	if err := cmd.Start(); err != nil {
		p.closeLog()
		return nil, fmt.Errorf("start %s: %w", opts.Name, err)
	}
	go func() {
		err := cmd.Wait()
		p.closeLog()
		p.err = err
		close(p.done)
	}()
	return p, nil
}

func (p *Process) closeLog() {
	if p.log != nil {
		_ = p.log.Close()
	}
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the process has exited and its output is written.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited says whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait waits for the process to exit and returns how it ended: nil for a zero exit
// status, an *exec.ExitError otherwise.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Signal sends sig to the process (not to its group), unless it has exited.
func (p *Process) Signal(sig syscall.Signal) error {
	if p.Exited() {
		return nil
	}
	return syscall.Kill(p.Pid(), sig)
}

// SignalGroup sends sig to the process's group, which holds the children it started
// (only with Options.Group; otherwise to the process alone). A group outlives its leader:
// this reaches children left behind after the process exited.
func (p *Process) SignalGroup(sig syscall.Signal) error {
	if !p.opts.Group {
		return p.Signal(sig)
	}
	err := syscall.Kill(-p.Pid(), sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Kill kills the process (its group with Options.Group) with SIGKILL and waits until it
// has exited, as a node that loses power ends it.
func (p *Process) Kill() {
	_ = p.SignalGroup(syscall.SIGKILL)
	<-p.done
}

// Stop stops the process as the kubelet does: SIGTERM, then, past Options.StopTimeout,
// BeforeKill and SIGKILL. It returns an error naming the process when it had to kill it,
// and nil when the process exited by itself, whatever its exit status (Wait has it).
func (p *Process) Stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Exited() {
		return nil
	}
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(p.opts.StopTimeout):
	}
	if p.opts.BeforeKill != nil {
		p.opts.BeforeKill(p)
	}
	p.Kill()
	return fmt.Errorf("%s did not stop within %s of SIGTERM and was killed", p.opts.Name, p.opts.StopTimeout)
}

// Tail is the last n lines of Options.LogFile, for an error message: a process's own words
// are the quickest way to see why it did not do what was expected.
func (p *Process) Tail(n int) string { return Tail(p.opts.LogFile, n) }

// Tail is the last n non-empty lines of the file at path, or what kept it from being read.
func Tail(path string, n int) string {
	data, err := os.ReadFile(path) //nolint:gosec // the log file this package itself was told to write
	if err != nil {
		return "(" + err.Error() + ")"
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return "(empty)"
	}
	return strings.Join(lines, "\n")
}

// FreePort is a TCP port on 127.0.0.1 that was free a moment ago, for a child process to
// listen on. Another process could take it in between; the child then fails to bind and
// says so in its log.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FreeAddr is FreePort as an address, 127.0.0.1:PORT.
func FreeAddr() (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}
