using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>The Newtonsoft processor's read check of a <see cref="ContainerEncryptionPolicy"/>; same rules and order as <c>PolicyScan</c>.</summary>
internal static class JPolicyCheck
{
    /// <summary>Checks one parsed document whose metadata is <paramref name="envelope"/> (null when not encrypted).</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.KeyNotAccepted"/> or <see cref="EncryptionErrorKind.PlaintextForbidden"/>.</exception>
    public static void Check(JObject document, JEnvelope? envelope, ContainerEncryptionPolicy policy, bool nameDocument)
    {
        if (envelope is not null)
        {
            PolicyReadCheck.CheckKey(policy, envelope.KeyId);
        }

        if (!PolicyReadCheck.Wants(policy))
        {
            return;
        }

        EncryptionPlan plan = policy.Plan;
        foreach (JProperty property in document.Properties())
        {
            if (property.Value.Type == JTokenType.Null)
            {
                continue;
            }

            int i = plan.FindPath(property.Name);
            if (i < 0)
            {
                continue;
            }

            string path = plan.GetPath(i);
            bool listed = envelope is { Format: EnvelopeFormat.PerProperty } && envelope.Paths.Contains(path);
            if (!listed)
            {
                string? id = nameDocument && document["id"] is JValue { Type: JTokenType.String } idValue ? (string?)idValue : null;
                PolicyReadCheck.OnPlaintext(policy, path, id);
                return;
            }
        }
    }
}
