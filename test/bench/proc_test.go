package bench

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// controlPlaneProcs are the process ids of the control plane's API server and etcd, found
// by their flags, so the run can report what the operator's writes cost them in CPU.
type controlPlaneProcs struct {
	apiserver, etcd int
}

// findControlPlane finds the API server serving cfg.Host and the etcd it stores in.
func findControlPlane(t *testing.T, cfg *rest.Config) controlPlaneProcs {
	host, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	var procs controlPlaneProcs
	var etcdURL string
	for _, a := range procArgs(t) {
		if filepath.Base(a.args[0]) == "kube-apiserver" && slices.Contains(a.args, "--secure-port="+host.Port()) {
			procs.apiserver = a.pid
			for _, arg := range a.args {
				if v, ok := strings.CutPrefix(arg, "--etcd-servers="); ok {
					etcdURL = v
				}
			}
		}
	}
	for _, a := range procArgs(t) {
		if filepath.Base(a.args[0]) == "etcd" && etcdURL != "" && slices.Contains(a.args, "--listen-client-urls="+etcdURL) {
			procs.etcd = a.pid
		}
	}
	if procs.apiserver == 0 || procs.etcd == 0 {
		t.Fatalf("control plane processes not found (API server pid %d, etcd pid %d at %q)", procs.apiserver, procs.etcd, etcdURL)
	}
	return procs
}

type procArg struct {
	pid  int
	args []string
}

func procArgs(t *testing.T) []procArg {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []procArg
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		out = append(out, procArg{pid: pid, args: strings.Split(string(bytes.TrimRight(raw, "\x00")), "\x00")})
	}
	return out
}

// clockTicks is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux).
const clockTicks = 100

// procCPU is a process's user and system CPU time so far.
func procCPU(t *testing.T, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: count fields after it.
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	// utime and stime are the stat file's 14th and 15th fields; fields[0] is the 3rd.
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, raw)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// cpu is the control plane's CPU time so far.
func (p controlPlaneProcs) cpu(t *testing.T) (apiserver, etcd time.Duration) {
	return procCPU(t, p.apiserver), procCPU(t, p.etcd)
}
