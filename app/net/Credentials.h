#pragma once

#include <optional>
#include <string>

namespace steward {

struct SecretLookup
{
    std::optional<std::string> secret;
    std::string source;  // "environment variable STEWARD_CLIENT_SECRET", "system keychain"
    std::string problem; // when there is none: where it looked and what to do
};

// A target's client secret: from the environment variable when it is set (always preferred when
// given), otherwise from the system keychain. Never written anywhere else.
SecretLookup findClientSecret(const std::string &url, const std::string &client, const std::string &environmentName);

// Keeps the secret in the system keychain for later runs; false (with the reason) when there is
// no keychain service on this machine.
bool storeClientSecret(const std::string &url, const std::string &client, const std::string &secret,
                       std::string *error);

} // namespace steward
