package httpserve

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionsEvict: Evict closes, of the sessions without a request in
// flight, the one idle longest of the user holding the most sessions
// (busy ones counted), and none while every session is busy.
func TestSessionsEvict(t *testing.T) {
	type open struct {
		id, user string
		busy     bool // its request is still in flight
	}
	tests := []struct {
		name  string
		open  []open // in the order of their last use
		touch string // a session used after all the others
		want  []string
	}{
		{"idle longest first", []open{{"a", "", false}, {"b", "", false}, {"c", "", false}}, "", []string{"a", "b", "c"}},
		{"a use makes a session the last", []open{{"a", "", false}, {"b", "", false}, {"c", "", false}}, "a", []string{"b", "c", "a"}},
		{"a busy session is never closed", []open{{"a", "", true}, {"b", "", false}}, "", []string{"b"}},
		{"every session busy", []open{{"a", "", true}, {"b", "", true}}, "", nil},
		{"the user holding the most first", []open{{"e1", "eve", false}, {"a1", "ada", false}, {"a2", "ada", false}}, "", []string{"a1", "e1", "a2"}},
		{"busy sessions count for their user", []open{{"e1", "eve", false}, {"a1", "ada", true}, {"a2", "ada", false}}, "", []string{"a2", "e1"}},
		{"a user with only busy sessions", []open{{"e1", "eve", false}, {"a1", "ada", true}, {"a2", "ada", true}}, "", []string{"e1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Sessions
			for _, o := range tt.open {
				s.Open(o.id, o.user)
				if !o.busy {
					s.End(o.id)
				}
			}
			if tt.touch != "" {
				require.True(t, s.Begin(tt.touch))
				s.End(tt.touch)
			}
			var got []string
			for {
				id, ok := s.Evict()
				if !ok {
					break
				}
				got = append(got, id)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestSessionsClosed: once a session is evicted or forgotten, the table
// refuses a request on it and ends its streams; Keep forgets the sessions
// the SDK no longer holds, streams and all.
func TestSessionsClosed(t *testing.T) {
	var s Sessions
	for _, id := range []string{"a", "b", "c"} {
		s.Open(id, "ada")
		s.End(id)
	}
	streamA, stopA, ok := s.Stream(context.Background(), "a")
	require.True(t, ok)
	defer stopA()
	streamC, stopC, ok := s.Stream(context.Background(), "c")
	require.True(t, ok)
	defer stopC()

	id, ok := s.Evict()
	require.True(t, ok)
	assert.Equal(t, "a", id)
	assert.False(t, s.Begin("a"))
	<-streamA.Done() // the stream ends with its session
	assert.NoError(t, streamC.Err())

	s.Keep(slices.Values([]string{"b"}))
	assert.Equal(t, 1, s.Len())
	<-streamC.Done()
	_, ok = s.Owner("c")
	assert.False(t, ok)
	owner, ok := s.Owner("b")
	require.True(t, ok)
	assert.Equal(t, "ada", owner)

	s.Forget("b")
	assert.Zero(t, s.Len())
	_, _, ok = s.Stream(context.Background(), "b")
	assert.False(t, ok)
}
