// Reads a JSON Web Key (RFC 7517, RFC 7518 §6) into a local key-encryption key: "kty":"RSA" with n, e and
// optionally d, p, q, dp, dq, qi (public-only keys can wrap but not unwrap), or "kty":"oct" with k.
// Members are base64url without padding; RSA integers drop leading zero bytes, so the private ones are
// left-padded back to the lengths RSAParameters requires. Secret members are decoded into pinned buffers
// that are zeroed once imported.
using System.Buffers;
using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text.Json;

namespace Encryption.Custom.Keys.Local;

/// <summary>Parses a JSON Web Key into a <see cref="LocalKeyEncryptionKey"/>.</summary>
internal static class JsonWebKeyReader
{
    /// <summary>Reads one JWK object from UTF-8 JSON.</summary>
    /// <exception cref="FormatException">The JSON is not a supported JWK.</exception>
    public static LocalKeyEncryptionKey Read(ReadOnlySpan<byte> utf8Json)
    {
        var members = new JwkMembers();
        try
        {
            ReadMembers(utf8Json, ref members);
            return members.Kty switch
            {
                "RSA" => CreateRsa(ref members),
                "oct" => members.K is { Length: > 0 } k
                    ? new LocalAesKeyEncryptionKey(k)
                    : throw new FormatException("An \"oct\" JSON Web Key needs the member \"k\"."),
                null => throw new FormatException("The JSON Web Key has no \"kty\" member."),
                _ => throw new FormatException($"The JSON Web Key type '{members.Kty}' is not supported (use \"RSA\" or \"oct\")."),
            };
        }
        finally
        {
            members.Clear();
        }
    }

    private static void ReadMembers(ReadOnlySpan<byte> utf8Json, ref JwkMembers members)
    {
        var reader = new Utf8JsonReader(utf8Json, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Skip });
        var seen = new HashSet<string>(StringComparer.Ordinal);
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                throw new FormatException("A JSON Web Key is a JSON object.");
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                string name = reader.GetString()!;

                // A repeated member would overwrite (and lose, unwiped) the first decoded copy of a secret; no valid JWK repeats one.
                if (!seen.Add(name))
                {
                    throw new FormatException($"The JSON Web Key repeats the member \"{TruncatedName(name)}\".");
                }

                reader.Read();
                if (reader.TokenType != JsonTokenType.String)
                {
                    reader.Skip();
                    continue;
                }

                switch (name)
                {
                    case "kty": members.Kty = reader.GetString(); break;
                    case "n": members.N = DecodeMember(ref reader, name, secret: false); break;
                    case "e": members.E = DecodeMember(ref reader, name, secret: false); break;
                    case "d": members.D = DecodeMember(ref reader, name, secret: true); break;
                    case "p": members.P = DecodeMember(ref reader, name, secret: true); break;
                    case "q": members.Q = DecodeMember(ref reader, name, secret: true); break;
                    case "dp": members.DP = DecodeMember(ref reader, name, secret: true); break;
                    case "dq": members.DQ = DecodeMember(ref reader, name, secret: true); break;
                    case "qi": members.QI = DecodeMember(ref reader, name, secret: true); break;
                    case "k": members.K = DecodeMember(ref reader, name, secret: true); break;
                    default: break;
                }
            }
        }
        catch (JsonException exception)
        {
            // The JSON reader's message quotes no member values, but keep ours uniform and secret-free.
            throw new FormatException("The JSON Web Key is not valid JSON.", exception);
        }
    }

    private static string TruncatedName(string name) => name.Length <= 32 ? name : name[..32] + "…";

    private static byte[] DecodeMember(ref Utf8JsonReader reader, string name, bool secret)
    {
        if (reader.ValueIsEscaped || reader.HasValueSequence)
        {
            throw new FormatException($"The JSON Web Key member \"{name}\" is not base64url.");
        }

        ReadOnlySpan<byte> encoded = reader.ValueSpan;
        byte[] decoded = GC.AllocateUninitializedArray<byte>(Base64Url.GetMaxDecodedLength(encoded.Length), pinned: secret);
        OperationStatus status = Base64Url.DecodeFromUtf8(encoded, decoded, out _, out int written);
        if (status != OperationStatus.Done)
        {
            CryptographicOperations.ZeroMemory(decoded);
            throw new FormatException($"The JSON Web Key member \"{name}\" is not base64url.");
        }

        if (written == decoded.Length)
        {
            return decoded;
        }

        byte[] exact = GC.AllocateUninitializedArray<byte>(written, pinned: secret);
        decoded.AsSpan(0, written).CopyTo(exact);
        CryptographicOperations.ZeroMemory(decoded);
        return exact;
    }

    private static LocalRsaKeyEncryptionKey CreateRsa(ref JwkMembers members)
    {
        if (members.N is not { Length: > 0 } n || members.E is not { Length: > 0 } e)
        {
            throw new FormatException("An \"RSA\" JSON Web Key needs the members \"n\" and \"e\".");
        }

        bool hasPrivate = members.D is not null;
        if (hasPrivate && (members.P is null || members.Q is null || members.DP is null || members.DQ is null || members.QI is null))
        {
            throw new FormatException("A private \"RSA\" JSON Web Key needs \"d\", \"p\", \"q\", \"dp\", \"dq\" and \"qi\".");
        }

        int modulusLength = n.Length;
        int halfLength = (modulusLength + 1) / 2;
        var parameters = new RSAParameters { Modulus = n, Exponent = e };
        byte[]?[] padded = new byte[]?[6];
        try
        {
            if (hasPrivate)
            {
                parameters.D = padded[0] = LeftPad(members.D!, modulusLength);
                parameters.P = padded[1] = LeftPad(members.P!, halfLength);
                parameters.Q = padded[2] = LeftPad(members.Q!, halfLength);
                parameters.DP = padded[3] = LeftPad(members.DP!, halfLength);
                parameters.DQ = padded[4] = LeftPad(members.DQ!, halfLength);
                parameters.InverseQ = padded[5] = LeftPad(members.QI!, halfLength);
            }

            RSA rsa = RSA.Create();
            try
            {
                rsa.ImportParameters(parameters);
            }
            catch (CryptographicException exception)
            {
                rsa.Dispose();
                throw new FormatException("The \"RSA\" JSON Web Key is not a consistent RSA key.", exception);
            }

            return new LocalRsaKeyEncryptionKey(rsa, hasPrivate);
        }
        finally
        {
            foreach (byte[]? buffer in padded)
            {
                CryptographicOperations.ZeroMemory(buffer);
            }
        }
    }

    private static byte[] LeftPad(byte[] value, int length)
    {
        if (value.Length > length)
        {
            throw new FormatException("An \"RSA\" JSON Web Key member is longer than the modulus allows.");
        }

        byte[] result = GC.AllocateArray<byte>(length, pinned: true);
        value.CopyTo(result.AsSpan(length - value.Length));
        return result;
    }

    /// <summary>The decoded members; secret ones are pinned and zeroed by <see cref="Clear"/>.</summary>
    private struct JwkMembers
    {
        public string? Kty;
        public byte[]? N, E, D, P, Q, DP, DQ, QI, K;

        public readonly void Clear()
        {
            CryptographicOperations.ZeroMemory(D);
            CryptographicOperations.ZeroMemory(P);
            CryptographicOperations.ZeroMemory(Q);
            CryptographicOperations.ZeroMemory(DP);
            CryptographicOperations.ZeroMemory(DQ);
            CryptographicOperations.ZeroMemory(QI);
            CryptographicOperations.ZeroMemory(K);
        }
    }
}
