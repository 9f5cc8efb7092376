// The context a deterministic IV binds besides the plaintext (wire-format.md, "Deterministic values"):
//   IV = HMAC-SHA256(ivKey, LE32(|P|) ‖ P ‖ marker ‖ plaintext)[0..16],   P = UTF-8 of the path ("/ssn")
// The length prefix keeps the framing unambiguous (no path is a prefix of another's framing), the path makes equal
// values in different properties encrypt differently, and the marker makes the string "1" and the integer 1 differ
// even when their plaintext bytes could coincide.
using System.Buffers.Binary;
using System.Text;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>Builds the per-path part of the deterministic IV context.</summary>
internal static class DeterministicIvContext
{
    /// <summary>LE32(|P|) ‖ P for <paramref name="path"/>: the constant prefix of every IV context of that path.</summary>
    public static byte[] CreatePathPrefix(string path)
    {
        byte[] utf8 = Encoding.UTF8.GetBytes(path);
        byte[] prefix = new byte[4 + utf8.Length];
        BinaryPrimitives.WriteInt32LittleEndian(prefix, utf8.Length);
        utf8.CopyTo(prefix, 4);
        return prefix;
    }
}
