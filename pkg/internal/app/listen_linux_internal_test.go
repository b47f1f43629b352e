package app

import (
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListenPlainTCP: the local server's socket is a TCP one, not the
// Multipath TCP socket Go's listeners default to where the kernel allows
// it (as on the machines this runs on, net.mptcp.enabled=1).
func TestListenPlainTCP(t *testing.T) {
	ln, err := listen(t.Context(), "127.0.0.1", 0)
	require.NoError(t, err)
	defer ln.Close()
	raw, err := ln.(*net.TCPListener).SyscallConn()
	require.NoError(t, err)
	var proto int
	var sockErr error
	require.NoError(t, raw.Control(func(fd uintptr) {
		proto, sockErr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_PROTOCOL)
	}))
	require.NoError(t, sockErr)
	assert.Equal(t, syscall.IPPROTO_TCP, proto, "the listener's protocol (262 is MPTCP)")
}
