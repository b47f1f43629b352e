package cli_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/cli"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	var out, errw bytes.Buffer
	code := cli.Run(context.Background(), []string{"version"}, cli.Env{Stdout: &out, Stderr: &errw})
	assert.Equal(t, cli.ExitOK, code, errw.String())
	assert.Equal(t, "a2a-lambda "+buildinfo.Version()+"\n", out.String())
	assert.NotContains(t, out.String(), "(devel)")

	out.Reset()
	errw.Reset()
	assert.Equal(t, cli.ExitUsage, cli.Run(context.Background(), []string{"version", "extra"}, cli.Env{Stdout: &out, Stderr: &errw}))
	assert.Contains(t, errw.String(), "a2a version: expected")

	out.Reset()
	cli.Run(context.Background(), []string{"help"}, cli.Env{Stdout: &out, Stderr: &errw})
	assert.Contains(t, out.String(), "a2a version")
}
