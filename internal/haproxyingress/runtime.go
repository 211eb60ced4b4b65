package haproxyingress

import (
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"time"
)

// statsSocket finds the admin socket in the haproxy.cfg HAProxy Ingress wrote.
var statsSocket = regexp.MustCompile(`(?m)^\s*stats socket (\S+)`)

// runtimeTimeout bounds one command on haproxy's admin socket.
const runtimeTimeout = 5 * time.Second

// Runtime sends one command to the running haproxy's admin socket (the stats socket of
// the configuration HAProxy Ingress last wrote) and returns its answer. It answers what
// the running process holds, which the configuration file does not: HAProxy Ingress
// writes the file before haproxy reloads, and a loaded machine can hold the reload back.
func (h *HAProxyIngress) Runtime(command string) (string, error) {
	cfg, err := h.Config()
	if err != nil {
		return "", err
	}
	m := statsSocket.FindSubmatch(cfg)
	if m == nil {
		return "", fmt.Errorf("haproxy.cfg names no stats socket")
	}
	conn, err := net.DialTimeout("unix", string(m[1]), runtimeTimeout)
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close() }()
	if err := conn.SetDeadline(time.Now().Add(runtimeTimeout)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(conn, command+"\n"); err != nil {
		return "", err
	}
	out, err := io.ReadAll(conn)
	return string(out), err
}

// startTime is the running worker's start in haproxy's "show info".
var startTime = regexp.MustCompile(`(?m)^Start_time_sec: (\d+)`)

// WorkerStarted is when the running haproxy worker started, to the second: a change that
// needs a reload (a backend's own lines) is in force once a worker started after it.
func (h *HAProxyIngress) WorkerStarted() (time.Time, error) {
	info, err := h.Runtime("show info")
	if err != nil {
		return time.Time{}, err
	}
	m := startTime.FindStringSubmatch(info)
	if m == nil {
		return time.Time{}, fmt.Errorf("haproxy's show info has no Start_time_sec")
	}
	sec, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(sec, 0), nil
}
