package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/studyloop/studyloop/server/studyloop"
)

// ErrWrongPassword is returned when the password confirming a change to
// the account is not the account's.
var ErrWrongPassword = &studyloop.Error{Code: studyloop.EUNAUTHORIZED, Message: "That is not your current password."}

// confirm checks the signed-in student's password as a sign-in from ip
// does, slowed down by the same failure counts, so that a borrowed session
// cannot guess it faster than the sign-in page could.
func (s *Service) confirm(ctx context.Context, userID int64, password, ip string) (*studyloop.User, error) {
	u, err := s.users.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	if _, err := s.SignIn(ctx, u.Email, password, ip); err != nil {
		if errors.Is(err, ErrBadCredentials) {
			return nil, ErrWrongPassword
		}
		return nil, err
	}
	return u, nil
}

// ChangePassword sets a new password after checking the current one
// (ErrWrongPassword, or a *ThrottledError after repeated failures). It
// ends every session of the account, on every device, and every agent
// grant; the caller signs the current browser in again.
func (s *Service) ChangePassword(ctx context.Context, userID int64, current, next, ip string) error {
	if err := ValidatePassword(next); err != nil {
		return err
	}
	if _, err := s.confirm(ctx, userID, current, ip); err != nil {
		return err
	}
	return s.setPassword(ctx, userID, next)
}

func (s *Service) setPassword(ctx context.Context, userID int64, password string) error {
	hash, err := HashPassword(password)
	if err != nil {
		return err
	}
	if err := s.users.SetPassword(ctx, userID, hash); err != nil {
		return err
	}
	_, err = s.users.EndUserGrants(ctx, userID, s.now())
	return err
}

// DeleteAccount deletes the account and everything in it once the password
// confirms it (ErrWrongPassword, or a *ThrottledError after repeated
// failures).
func (s *Service) DeleteAccount(ctx context.Context, userID int64, password, ip string) error {
	if _, err := s.confirm(ctx, userID, password, ip); err != nil {
		return err
	}
	return s.users.DeleteUser(ctx, userID)
}

// Password resets.
const (
	// ResetLifetime is how long a reset link works.
	ResetLifetime = 30 * time.Minute
	// resetsPerEmail and resetsPerIP are the reset requests allowed per
	// typed address and per client within an hour before each further
	// one must wait (one second, doubling up to an hour).
	resetsPerEmail = 3
	resetsPerIP    = 10
)

// ResetToken is a password-reset link's secret for one account.
type ResetToken struct {
	Email string
	Token string
}

// StartReset makes a single-use reset token for the account with the
// email, valid for ResetLifetime; only its hash is stored. For an address
// without an account it returns nil and no error, so that callers answer
// alike and nothing tells whether an account exists. Requests are limited
// per typed address and per client ip: over the limit it returns a
// *ThrottledError, whether or not the account exists.
func (s *Service) StartReset(ctx context.Context, email, ip string) (*ResetToken, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	emailKey, ipKey := "email:"+email, "ip:"+ip
	emailWait, ipWait := s.resetEmails.Begin(emailKey), s.resetIPs.Begin(ipKey)
	if emailWait == 0 {
		s.resetEmails.Fail(emailKey)
	}
	if ipWait == 0 {
		s.resetIPs.Fail(ipKey)
	}
	if emailWait > 0 || ipWait > 0 {
		return nil, &ThrottledError{RetryAfter: max(emailWait, ipWait), Reset: true}
	}
	u, err := s.users.UserByEmail(ctx, email)
	switch studyloop.ErrorCode(err) {
	case "":
	case studyloop.ENOTFOUND:
		return nil, nil
	default:
		return nil, err
	}
	return s.IssueReset(ctx, u)
}

// IssueReset makes a reset token for u without any limit, for the operator
// command.
func (s *Service) IssueReset(ctx context.Context, u *studyloop.User) (*ResetToken, error) {
	token := rand.Text()
	if err := s.users.CreatePasswordReset(ctx, u.ID, hashResetToken(token), s.now().Add(ResetLifetime)); err != nil {
		return nil, err
	}
	return &ResetToken{Email: u.Email, Token: token}, nil
}

// ResetUser returns the account a reset token is for, while the token is
// unused and unexpired (otherwise an EINVALID error saying so).
func (s *Service) ResetUser(ctx context.Context, token string) (*studyloop.User, error) {
	return s.users.PasswordResetUser(ctx, hashResetToken(token), s.now())
}

// FinishReset spends the reset token and sets the new password, which ends
// every session of the account and every agent grant. It returns the
// account's id, for the caller to sign the browser in.
func (s *Service) FinishReset(ctx context.Context, token, password string) (int64, error) {
	if err := ValidatePassword(password); err != nil {
		return 0, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return 0, err
	}
	userID, err := s.users.ResetPassword(ctx, hashResetToken(token), hash, s.now())
	if err != nil {
		return 0, err
	}
	_, err = s.users.EndUserGrants(ctx, userID, s.now())
	return userID, err
}

// hashResetToken is the stored form of a reset token: its SHA-256, in
// base64url. The token carries 130 random bits (rand.Text), so no salt or slow hash is
// needed.
func hashResetToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
