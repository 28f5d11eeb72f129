package oauth

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/studyloop"
)

// OAuth 2.0 Dynamic Client Registration, RFC 7591.

// maxRegistrationBytes caps a registration request body.
const maxRegistrationBytes = 64 << 10

// maxClientNameChars caps client_name.
const maxClientNameChars = 200

// HandleRegister answers POST /oauth/register. Only public clients are
// registered (token_endpoint_auth_method "none"); they may use the
// authorization code and refresh token grants. application_type (OpenID
// Connect Dynamic Registration §2) may be "web" (the default) or "native";
// it is answered back but changes nothing, since both kinds follow the same
// redirect URI rules.
func (s *Server) HandleRegister() http.Handler {
	type request struct {
		RedirectURIs            []string `json:"redirect_uris"`
		ClientName              string   `json:"client_name"`
		GrantTypes              []string `json:"grant_types"`
		ResponseTypes           []string `json:"response_types"`
		TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
		ApplicationType         string   `json:"application_type"`
	}
	type response struct {
		ClientID                string   `json:"client_id"`
		ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
		ClientName              string   `json:"client_name,omitempty"`
		RedirectURIs            []string `json:"redirect_uris"`
		GrantTypes              []string `json:"grant_types"`
		ResponseTypes           []string `json:"response_types"`
		TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
		ApplicationType         string   `json:"application_type"`
	}
	const badMetadata, badRedirect = "invalid_client_metadata", "invalid_redirect_uri"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := s.now()
		if ok, wait := s.registers.Allow(s.cfg.ClientKey(r), now); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(wait)))
			writeError(w, http.StatusTooManyRequests, "too_many_requests",
				fmt.Sprintf("Too many client registrations from this address; try again in %d seconds.", ratelimit.RetryAfterSeconds(wait)))
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			writeError(w, http.StatusBadRequest, badMetadata, "The request body must be JSON (Content-Type: application/json).")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
		if err != nil {
			if errors.As(err, new(*http.MaxBytesError)) {
				writeError(w, http.StatusRequestEntityTooLarge, badMetadata, "The request body is larger than 64 KiB.")
				return
			}
			writeError(w, http.StatusBadRequest, badMetadata, "The request body could not be read.")
			return
		}
		var req request
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := dec.Decode(&req); err != nil {
			writeError(w, http.StatusBadRequest, badMetadata, "The request body must be one JSON object of client metadata.")
			return
		}
		if _, err := dec.Token(); err != io.EOF {
			writeError(w, http.StatusBadRequest, badMetadata, "The request body must be one JSON object of client metadata, and nothing after it.")
			return
		}
		if len(req.RedirectURIs) == 0 {
			writeError(w, http.StatusBadRequest, badRedirect, "redirect_uris is required and must list at least one URI.")
			return
		}
		if len(req.RedirectURIs) > maxRedirectURIs {
			writeError(w, http.StatusBadRequest, badRedirect, fmt.Sprintf("At most %d redirect URIs may be registered.", maxRedirectURIs))
			return
		}
		for _, u := range req.RedirectURIs {
			if problem := checkRedirectURI(u); problem != "" {
				writeError(w, http.StatusBadRequest, badRedirect, fmt.Sprintf("Redirect URI %q: %s.", truncate(u, 200), problem))
				return
			}
		}
		if problem := checkClientName(req.ClientName); problem != "" {
			writeError(w, http.StatusBadRequest, badMetadata, problem)
			return
		}
		switch req.TokenEndpointAuthMethod {
		case "", "none":
		default:
			writeError(w, http.StatusBadRequest, badMetadata, `Only public clients can register: token_endpoint_auth_method must be "none".`)
			return
		}
		switch req.ApplicationType {
		case "":
			req.ApplicationType = "web"
		case "web", "native":
		default:
			writeError(w, http.StatusBadRequest, badMetadata, fmt.Sprintf(`Application type %q is not supported; use "web" or "native".`, truncate(req.ApplicationType, 100)))
			return
		}
		for _, g := range req.GrantTypes {
			if g != "authorization_code" && g != "refresh_token" {
				writeError(w, http.StatusBadRequest, badMetadata, fmt.Sprintf("Grant type %q is not supported; use authorization_code and refresh_token.", truncate(g, 100)))
				return
			}
		}
		if len(req.GrantTypes) > 0 && !slices.Contains(req.GrantTypes, "authorization_code") {
			writeError(w, http.StatusBadRequest, badMetadata, "grant_types must include authorization_code.")
			return
		}
		for _, t := range req.ResponseTypes {
			if t != "code" {
				writeError(w, http.StatusBadRequest, badMetadata, fmt.Sprintf("Response type %q is not supported; use code.", truncate(t, 100)))
				return
			}
		}

		client := &studyloop.OAuthClient{
			ID:           "slc_" + rand.Text(), // 130 random bits
			Name:         req.ClientName,
			RedirectURIs: slices.Compact(slices.Clone(req.RedirectURIs)),
			CreatedAt:    now,
		}
		if err := s.store.CreateOAuthClient(r.Context(), client); err != nil {
			s.logger.Error("oauth: register client", "err", err)
			writeError(w, http.StatusInternalServerError, "server_error", "The client could not be registered.")
			return
		}
		writeJSON(w, http.StatusCreated, response{
			ClientID:                client.ID,
			ClientIDIssuedAt:        client.CreatedAt.Unix(),
			ClientName:              client.Name,
			RedirectURIs:            client.RedirectURIs,
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
			ApplicationType:         req.ApplicationType,
		})
	})
}

// checkClientName returns what is wrong with a client_name, or "".
func checkClientName(name string) string {
	switch {
	case !utf8.ValidString(name):
		return "client_name must be valid UTF-8."
	case utf8.RuneCountInString(name) > maxClientNameChars:
		return fmt.Sprintf("client_name may have at most %d characters.", maxClientNameChars)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }):
		return "client_name may not contain control or formatting characters."
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// registerBurst is how many registrations one client may make at once when
// perHour may be made in an hour: three minutes' worth, at least 1. At the
// default 1200 an hour that is 60 at once, then one every 3 seconds.
func registerBurst(perHour int) int {
	return max(1, perHour/20)
}
