package serve

import (
	"bytes"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckLoopback: -http listens on loopback addresses only.
func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.1:0", true},
		{"127.1.2.3:80", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{":8080", false},
		{"0.0.0.0:8080", false},
		{"[::]:8080", false},
		{"192.168.1.10:8080", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			err := CheckLoopback(tt.addr)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

// TestModeFlags: the -stdio and -http flags, and the command lines that
// Parse and Check refuse as usage errors, reported with the usage.
func TestModeFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    Mode
		wantErr error
	}{
		{"none: the demo", nil, Mode{MaxSessions: 1000}, nil},
		{"stdio", []string{"-stdio"}, Mode{Stdio: true, MaxSessions: 1000}, nil},
		{"http", []string{"-http", "127.0.0.1:0"}, Mode{HTTP: "127.0.0.1:0", MaxSessions: 1000}, nil},
		{"http, 5 sessions", []string{"-http", "127.0.0.1:0", "-max-sessions", "5"}, Mode{HTTP: "127.0.0.1:0", MaxSessions: 5}, nil},
		{"no sessions", []string{"-http", "127.0.0.1:0", "-max-sessions", "0"}, Mode{}, ErrUsage},
		{"help", []string{"-help"}, Mode{}, flag.ErrHelp},
		{"both", []string{"-stdio", "-http", "127.0.0.1:0"}, Mode{}, ErrUsage},
		{"public address", []string{"-http", "0.0.0.0:8080"}, Mode{}, ErrUsage},
		{"no port", []string{"-http", "127.0.0.1"}, Mode{}, ErrUsage},
		{"stray argument", []string{"extra"}, Mode{}, ErrUsage},
		{"unknown flag", []string{"-nope"}, Mode{}, ErrUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
			fs.SetOutput(&out)
			var m Mode
			m.Register(fs)
			err := Parse(fs, tt.args)
			if err == nil {
				err = m.Check(fs)
			}
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, out.String(), "Usage of cmd")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, m)
			assert.Equal(t, !tt.want.Stdio && tt.want.HTTP == "", m.Demo())
			assert.Equal(t, tt.want.MaxSessions, m.Limits().MaxSessions)
			assert.Empty(t, out.String())
		})
	}
}

// TestModeRemote: with Remote, -http takes any host:port, and still
// refuses an address without a port.
func TestModeRemote(t *testing.T) {
	for _, tt := range []struct {
		addr string
		ok   bool
	}{
		{":8080", true},
		{"0.0.0.0:8080", true},
		{"[::]:8080", true},
		{"example.com:80", true},
		{"127.0.0.1:0", true},
		{"127.0.0.1", false},
		{"example.com", false},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
			var out bytes.Buffer
			fs.SetOutput(&out)
			m := Mode{Remote: true}
			m.Register(fs)
			require.NoError(t, Parse(fs, []string{"-http", tt.addr}))
			err := m.Check(fs)
			if !tt.ok {
				require.ErrorIs(t, err, ErrUsage)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.addr, m.HTTP)
		})
	}
}

// TestUsage: a problem is reported before the usage, and is ErrUsage.
func TestUsage(t *testing.T) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	fs.SetOutput(&out)
	err := Usage(fs, "-x %q: bad", "v")
	require.ErrorIs(t, err, ErrUsage)
	line, _, _ := bytes.Cut(out.Bytes(), []byte("\n"))
	assert.Equal(t, `-x "v": bad`, string(line))
}
