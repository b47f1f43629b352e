package verify_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/verify"
)

// A webhook receiver verifies the agent's notifications with the
// middleware. The agent half of this example (the key set served as a
// JWKS, the deliverer) stands in for a deployed a2a-lambda agent.
func ExampleVerifier_Middleware() {
	// The agent: a signing key whose JWKS it serves.
	set, err := keys.Generate(keys.AlgES256)
	if err != nil {
		panic(err)
	}
	agent := httptest.NewServer(set)
	defer agent.Close()

	// The receiver: the URL it registered as the push config's url, with
	// the token it registered.
	srv := httptest.NewUnstartedServer(nil)
	hookURL := "http://" + srv.Listener.Addr().String() + "/a2a/webhook"
	v, err := verify.New(verify.Options{
		Keys:     verify.NewJWKS(agent.URL+"/.well-known/jwks.json", verify.JWKSOptions{}),
		Audience: hookURL,
		Token:    "my-registered-token",
	})
	if err != nil {
		panic(err)
	}
	srv.Config.Handler = v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := verify.FromContext(r.Context())
		fmt.Printf("task %s is at version %d: %s\n", n.TaskID, n.TaskVersion, n.Body)
	}))
	srv.Start()
	defer srv.Close()

	// The agent notifies; the second delivery of the same event is
	// acknowledged without reaching the handler.
	d, err := push.NewDeliverer(push.DelivererOptions{
		Signer: set, Issuer: agent.URL,
		Policy: egress.Policy{AllowInsecure: true}, // the receiver listens on 127.0.0.1
	})
	if err != nil {
		panic(err)
	}
	n := push.Notification{
		Config: a2a.PushNotificationConfig{URL: hookURL, Token: "my-registered-token"},
		TaskID: "task-1", TaskVersion: 3, Body: []byte(`{"kind":"task","id":"task-1"}`),
	}
	fmt.Println(d.Deliver(context.Background(), n).Outcome)
	fmt.Println(d.Deliver(context.Background(), n).Outcome)
	// Output:
	// task task-1 is at version 3: {"kind":"task","id":"task-1"}
	// delivered
	// delivered
}
