package haproxyingress

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// processGroup lists the processes of process group pgid, from /proc.
func processGroup(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name, in parentheses, may hold spaces: the fields after it are
		// state, ppid, pgrp.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ListeningAddrs are the local addresses ("ip:port") of the TCP sockets that the processes
// listen on, read from /proc: each process's socket inodes, looked up in the network
// namespace's tables.
func ListeningAddrs(pids []int) ([]string, error) {
	inodes := map[string]bool{}
	for _, pid := range pids {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			continue // it exited
		}
		for _, fd := range fds {
			link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
				inodes[strings.TrimSuffix(inode, "]")] = true
			}
		}
	}
	var addrs []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			return nil, err
		}
		s := bufio.NewScanner(f)
		s.Scan() // the header
		for s.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			fields := strings.Fields(s.Text())
			const listen = "0A"
			if len(fields) < 10 || fields[3] != listen || !inodes[fields[9]] {
				continue
			}
			addr, err := procAddr(fields[1])
			if err != nil {
				f.Close()
				return nil, err
			}
			addrs = append(addrs, addr)
		}
		f.Close()
		if err := s.Err(); err != nil {
			return nil, err
		}
	}
	return addrs, nil
}

// procAddr decodes an address of /proc/net/tcp{,6}: the IP in hex, in host byte order
// per 32-bit word (little-endian here), then the port in hex.
func procAddr(s string) (string, error) {
	hexIP, hexPort, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if !ok || err != nil || (len(hexIP) != 8 && len(hexIP) != 32) {
		return "", fmt.Errorf("unexpected address %q in /proc/net/tcp", s)
	}
	ip := make([]byte, 0, len(hexIP)/2)
	for w := 0; w < len(hexIP); w += 8 {
		word, err := strconv.ParseUint(hexIP[w:w+8], 16, 32)
		if err != nil {
			return "", fmt.Errorf("unexpected address %q in /proc/net/tcp", s)
		}
		ip = append(ip, byte(word), byte(word>>8), byte(word>>16), byte(word>>24))
	}
	return netipString(ip, uint16(port)), nil
}

func netipString(ip []byte, port uint16) string {
	addr, _ := netip.AddrFromSlice(ip)
	return netip.AddrPortFrom(addr.Unmap(), port).String()
}
