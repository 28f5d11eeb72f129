// Package config reads the server's configuration from environment
// variables. Every variable, its default and its meaning is listed in Config
// and in the README.
package config

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Config is the whole runtime configuration.
type Config struct {
	// Addr is the listen address (ADDR, default ":8080").
	Addr string
	// BaseURL is the public origin without a trailing slash (BASE_URL,
	// default "http://localhost:8080"). Every absolute URL the server
	// writes starts with it.
	BaseURL string
	// DatabaseURL names the database (DATABASE_URL): "sqlite:PATH"
	// (default "sqlite:data/studyloop.db") or a postgres:// URL.
	DatabaseURL string
	// LogLevel is debug, info, warn or error (LOG_LEVEL, default info).
	LogLevel string
	// ShutdownTimeout bounds how long in-flight requests may take to finish
	// after SIGINT or SIGTERM (SHUTDOWN_TIMEOUT, default 15s).
	ShutdownTimeout time.Duration
	// AllowedHosts are extra host names (besides BaseURL's) that requests to
	// /mcp may name in Host or Origin (ALLOWED_HOSTS, comma-separated).
	AllowedHosts []string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed (TRUSTED_PROXIES, comma-separated CIDR ranges, default none):
	// see clientaddr.Addr.
	TrustedProxies []netip.Prefix
	// RegisterRateLimit is how many client registrations one client (see
	// clientaddr.Key) may make per hour (REGISTER_RATE_LIMIT, default 1200, 20 a
	// minute: hosted agents register on every fresh connection for all
	// their users from a few shared addresses; 0 turns the limit off).
	RegisterRateLimit int
	// SignUpRateLimit is how many sign-up attempts one client (see
	// clientaddr.Key) may make per hour, half of them at once (SIGNUP_RATE_LIMIT,
	// default 60: a class of 30 behind one school address can all sign up
	// at once; 0 turns the limit off).
	SignUpRateLimit int
	// AccessTokenTTL is the lifetime of access tokens (ACCESS_TOKEN_TTL,
	// default 1h).
	AccessTokenTTL time.Duration
	// RefreshTokenTTL is the lifetime of refresh tokens (REFRESH_TOKEN_TTL,
	// default 720h, thirty days).
	RefreshTokenTTL time.Duration
	// Quotas bound what one account may create and upload (QUOTA_*
	// variables, see README "Limits and fair use"; 0 turns one off).
	Quotas studyloop.Quotas
	// Workers is the number of workers in this process for studies made
	// from text (WORKERS, default 2, so that one account's backlog, which
	// holds at most one of them, never holds up another's study; 0
	// disables processing here).
	Workers int
	// SMTPURL names the mail server for password-reset emails (SMTP_URL,
	// smtp://user:password@host:port or smtps://…; default none: resets
	// are issued by the operator with `studyloop user reset-password`).
	SMTPURL string
	// MailFrom is the sender of those emails (MAIL_FROM, default
	// "Studyloop <noreply@HOST>" with BaseURL's host name).
	MailFrom string
	// UploadWorkers is the number of workers in this process that read
	// studies made from uploads, apart from Workers so that a long OCR
	// job never holds up studies made from text (UPLOAD_WORKERS, default
	// 1; no worker runs when Workers is 0).
	UploadWorkers int
	// FastSite turns on the connection-level fast path (package
	// fastsite) for GETs and HEADs of the built site (FAST_SITE, "on" by
	// default; "off" leaves every request to net/http).
	FastSite bool
}

// FromEnv builds a Config from getenv, applying defaults and validating.
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Addr:              or(getenv("ADDR"), ":8080"),
		BaseURL:           strings.TrimRight(or(getenv("BASE_URL"), "http://localhost:8080"), "/"),
		DatabaseURL:       or(getenv("DATABASE_URL"), "sqlite:data/studyloop.db"),
		LogLevel:          or(getenv("LOG_LEVEL"), "info"),
		ShutdownTimeout:   15 * time.Second,
		RegisterRateLimit: 1200,
		SignUpRateLimit:   60,
		AccessTokenTTL:    time.Hour,
		RefreshTokenTTL:   30 * 24 * time.Hour,
		Workers:           2,
		UploadWorkers:     1,
		FastSite:          true,
		SMTPURL:           getenv("SMTP_URL"),
		MailFrom:          getenv("MAIL_FROM"),
		Quotas: studyloop.Quotas{
			StudiesPerHour:    60,
			StudiesPerDay:     300,
			StoredChars:       50_000_000,
			UploadFilesPerDay: 200,
			UploadPagesPerDay: 2_000,
			UploadBytesPerDay: 1 << 30,
		},
	}
	var errs []string
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
		errs = append(errs, fmt.Sprintf("BASE_URL %q must be an http or https origin such as https://studyloop.example", c.BaseURL))
	}
	if c.MailFrom == "" && u != nil {
		c.MailFrom = "Studyloop <noreply@" + u.Hostname() + ">"
	}
	if v := getenv("ALLOWED_HOSTS"); v != "" {
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				c.AllowedHosts = append(c.AllowedHosts, strings.ToLower(h))
			}
		}
	}
	switch v := getenv("FAST_SITE"); v {
	case "", "on":
	case "off":
		c.FastSite = false
	default:
		errs = append(errs, fmt.Sprintf("FAST_SITE %q must be on or off", v))
	}
	if v := getenv("TRUSTED_PROXIES"); v != "" {
		var ok bool
		if c.TrustedProxies, ok = parsePrefixes(v); !ok {
			errs = append(errs, fmt.Sprintf("TRUSTED_PROXIES %q must be comma-separated CIDR ranges such as 10.0.0.0/8,fd00::/8", v))
		}
	}
	durations := []struct {
		name string
		dst  *time.Duration
	}{
		{"SHUTDOWN_TIMEOUT", &c.ShutdownTimeout},
		{"ACCESS_TOKEN_TTL", &c.AccessTokenTTL},
		{"REFRESH_TOKEN_TTL", &c.RefreshTokenTTL},
	}
	for _, d := range durations {
		if v := getenv(d.name); v != "" {
			parsed, err := time.ParseDuration(v)
			if err != nil || parsed <= 0 {
				errs = append(errs, fmt.Sprintf("%s %q must be a positive duration such as 90s or 2h", d.name, v))
				continue
			}
			*d.dst = parsed
		}
	}
	ints := []struct {
		name string
		dst  *int
	}{
		{"REGISTER_RATE_LIMIT", &c.RegisterRateLimit},
		{"SIGNUP_RATE_LIMIT", &c.SignUpRateLimit},
		{"WORKERS", &c.Workers},
		{"UPLOAD_WORKERS", &c.UploadWorkers},
		{"QUOTA_STUDIES_PER_HOUR", &c.Quotas.StudiesPerHour},
		{"QUOTA_STUDIES_PER_DAY", &c.Quotas.StudiesPerDay},
		{"QUOTA_STORED_CHARS", &c.Quotas.StoredChars},
		{"QUOTA_UPLOAD_FILES_PER_DAY", &c.Quotas.UploadFilesPerDay},
		{"QUOTA_UPLOAD_PAGES_PER_DAY", &c.Quotas.UploadPagesPerDay},
	}
	for _, n := range ints {
		if v := getenv(n.name); v != "" {
			parsed, err := strconv.Atoi(v)
			if err != nil || parsed < 0 {
				errs = append(errs, fmt.Sprintf("%s %q must be a whole number, 0 or more", n.name, v))
				continue
			}
			*n.dst = parsed
		}
	}
	if c.UploadWorkers == 0 {
		errs = append(errs, "UPLOAD_WORKERS must be 1 or more (WORKERS=0 stops all processing in this replica)")
	}
	if v := getenv("QUOTA_UPLOAD_MIB_PER_DAY"); v != "" {
		mib, err := strconv.ParseInt(v, 10, 64)
		if err != nil || mib < 0 || mib > 1<<40 {
			errs = append(errs, fmt.Sprintf("QUOTA_UPLOAD_MIB_PER_DAY %q must be a whole number of MiB, 0 or more", v))
		} else {
			c.Quotas.UploadBytesPerDay = mib << 20
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Sprintf("LOG_LEVEL %q must be debug, info, warn or error", c.LogLevel))
	}
	if !strings.HasPrefix(c.DatabaseURL, "sqlite:") && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		errs = append(errs, "DATABASE_URL must start with sqlite: or postgres://")
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("config: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// Secure reports whether the public origin is HTTPS, so that cookies must be
// marked Secure.
func (c Config) Secure() bool { return strings.HasPrefix(strings.ToLower(c.BaseURL), "https://") }

// MCPResource is the canonical URL of the MCP protected resource.
func (c Config) MCPResource() string { return c.BaseURL + "/mcp" }

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// parsePrefixes parses TRUSTED_PROXIES: comma-separated CIDR ranges; a
// bare address stands for itself alone.
func parsePrefixes(v string) ([]netip.Prefix, bool) {
	var out []netip.Prefix
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil || a.Zone() != "" {
				return nil, false
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Addr().Is4In6() {
			// ::ffff:10.0.0.0/104 and the like: compare as IPv4, as
			// addresses are unmapped before they are compared.
			if p.Bits() < 96 {
				return nil, false
			}
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, true
}
