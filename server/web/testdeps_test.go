package web

import (
	"io"
	"log/slog"
	"testing"

	"github.com/studyloop/studyloop/server/config"
)

// NewTestDeps returns Deps over a fresh SQLite database and the built site
// for this package's own tests. It is webtest.Deps, which these files
// cannot import (webtest imports web): the external test package sets it
// (webtest_test.go).
var NewTestDeps func(tb testing.TB, cfg config.Config, logger *slog.Logger, requestLog io.Writer) Deps
