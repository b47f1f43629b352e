package sfntest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// newServer serves handler on a loopback listener for the test and returns
// its URL.
func newServer(t testing.TB, handler http.Handler) string {
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Bridge serves a Lambda handler the way moto's bridge invokes it: the
// request body is the payload, the response body the result; an error is
// answered 500 with a Lambda error body, which the state machine sees as a
// failed invocation.
func Bridge[E any, R any](handle func(context.Context, E) (R, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev E
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			writeLambdaError(w, "InvalidEvent", err)
			return
		}
		res, err := handle(r.Context(), ev)
		if err != nil {
			writeLambdaError(w, "HandlerError", err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(res)
	})
}

func writeLambdaError(w http.ResponseWriter, typ string, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInternalServerError)
	json.NewEncoder(w).Encode(map[string]string{"errorType": typ, "errorMessage": err.Error()})
}
