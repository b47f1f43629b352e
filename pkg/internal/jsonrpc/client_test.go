package jsonrpc_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

// A request the client writes is one the server reads back as it was.
func TestEncodeRequestRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		params json.RawMessage
	}{
		{"with params", "tasks/get", json.RawMessage(`{"id":"t1"}`)},
		{"without params", "agent/getAuthenticatedExtendedCard", nil},
		{"a method that needs escaping", `odd"method`, json.RawMessage(`[]`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := jsonrpc.EncodeRequest(42, tc.method, tc.params)
			require.NoError(t, err)
			req, _, err := jsonrpc.Decode(b)
			require.NoError(t, err)
			assert.Equal(t, "42", string(req.ID))
			assert.Equal(t, tc.method, req.Method)
			assert.Equal(t, string(tc.params), string(req.Params))
		})
	}
}

func TestDecodeResponse(t *testing.T) {
	ok, err := jsonrpc.DecodeResponse(jsonrpc.EncodeResult(json.RawMessage("7"), json.RawMessage(`{"id":"t1"}`)))
	require.NoError(t, err)
	assert.Nil(t, ok.Error)
	assert.JSONEq(t, `{"id":"t1"}`, string(ok.Result))

	failed, err := jsonrpc.DecodeResponse(jsonrpc.EncodeError(json.RawMessage("7"), jsonrpc.ErrorObject{Code: -32001, Message: "not found", Data: []string{"x"}}))
	require.NoError(t, err)
	require.NotNil(t, failed.Error)
	assert.Equal(t, -32001, failed.Error.Code)
	assert.Equal(t, "not found", failed.Error.Message)
	assert.JSONEq(t, `["x"]`, string(failed.Error.Data))

	empty, err := jsonrpc.DecodeResponse([]byte(`{"jsonrpc":"2.0","id":1}`))
	require.NoError(t, err, "a response without a result member is an empty result")
	assert.Nil(t, empty.Error)
	assert.Equal(t, "null", string(empty.Result))

	for _, bad := range []string{`not json`, `[]`, `"ok"`} {
		_, err := jsonrpc.DecodeResponse([]byte(bad))
		assert.Error(t, err, bad)
	}
}
