package web_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/web"
	"github.com/studyloop/studyloop/server/web/webtest"
)

func init() {
	web.NewTestDeps = func(tb testing.TB, cfg config.Config, logger *slog.Logger, requestLog io.Writer) web.Deps {
		tb.Helper()
		return webtest.Deps(tb, cfg, storetest.Open(tb, "sqlite"), webtest.Options{Logger: logger, RequestLog: requestLog})
	}
}
