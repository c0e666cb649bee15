package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTick is the unit of the CPU times in /proc/PID/stat: USER_HZ,
// which Linux fixes at 100 for every architecture's user-space ABI.
const clockTick = 10 * time.Millisecond

// procStat is what the harness reads of one /proc/PID/stat line.
type procStat struct {
	ppid int
	cpu  time.Duration // user and system time, of every thread
}

// parseStat parses a /proc/PID/stat line. The command name, field 2, is
// in parentheses and may hold spaces and parentheses itself, so the
// fields are counted from the last ')'.
func parseStat(line []byte) (procStat, error) {
	end := bytes.LastIndexByte(line, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("/proc stat %q: no command name", line)
	}
	// After the name: state (3), ppid (4), ..., utime (14), stime (15).
	f := bytes.Fields(line[end+1:])
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("/proc stat %q: %d fields after the command name, want at least 13", line, len(f))
	}
	var n [3]int64
	for i, j := range []int{1, 11, 12} {
		v, err := strconv.ParseInt(string(f[j]), 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("/proc stat field %d: %w", j+3, err)
		}
		n[i] = v
	}
	return procStat{ppid: int(n[0]), cpu: time.Duration(n[1]+n[2]) * clockTick}, nil
}

// readStat reads the /proc/PID/stat of pid.
func readStat(pid int) (procStat, error) {
	return readStatFile("/proc/" + strconv.Itoa(pid) + "/stat")
}

// childOf returns the pid of a child process of parent, waiting up to
// wait for one to appear: the downstream a relay started on stdio.
func childOf(parent int, wait time.Duration) (int, error) {
	deadline := time.Now().Add(wait)
	for {
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, p := range stats {
			st, err := readStatFile(p)
			if err == nil && st.ppid == parent {
				return strconv.Atoi(filepath.Base(filepath.Dir(p)))
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("process %d started no child within %v", parent, wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readStatFile reads the /proc stat file at path.
func readStatFile(path string) (procStat, error) {
	line, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, err
	}
	return parseStat(line)
}
