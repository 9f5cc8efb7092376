// The body of Key Vault's wrapkey / unwrapkey: {"alg":"<algorithm>","value":"<base64url, no padding>"}.
// For wrapkey the value is the raw data encryption key, so the body is built byte by byte in a pinned buffer
// (never a string) and zeroed once the request is done.
using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>A pinned, zero-on-dispose JSON body for a key operation.</summary>
internal sealed class KeyVaultKeyOperationBody : IDisposable
{
    private byte[]? _buffer;

    private KeyVaultKeyOperationBody(byte[] buffer, int length)
    {
        _buffer = buffer;
        Length = length;
    }

    public int Length { get; }

    public ReadOnlyMemory<byte> Memory => new(_buffer ?? throw new ObjectDisposedException(nameof(KeyVaultKeyOperationBody)), 0, Length);

    public static KeyVaultKeyOperationBody Create(string algorithm, ReadOnlySpan<byte> value)
    {
        ReadOnlySpan<byte> start = "{\"alg\":\""u8;
        ReadOnlySpan<byte> middle = "\",\"value\":\""u8;
        ReadOnlySpan<byte> end = "\"}"u8;

        // Algorithm names are ASCII constants checked by the caller; nothing in them needs JSON escaping.
        int algorithmLength = Encoding.ASCII.GetByteCount(algorithm);
        int encodedLength = Base64Url.GetEncodedLength(value.Length);
        int length = start.Length + algorithmLength + middle.Length + encodedLength + end.Length;
        byte[] buffer = GC.AllocateUninitializedArray<byte>(length, pinned: true);
        Span<byte> destination = buffer;
        start.CopyTo(destination);
        int offset = start.Length;
        offset += Encoding.ASCII.GetBytes(algorithm, destination[offset..]);
        middle.CopyTo(destination[offset..]);
        offset += middle.Length;
        offset += Base64Url.EncodeToUtf8(value, destination[offset..]);
        end.CopyTo(destination[offset..]);
        offset += end.Length;
        return new KeyVaultKeyOperationBody(buffer, offset);
    }

    public void Dispose()
    {
        byte[]? buffer = Interlocked.Exchange(ref _buffer, null);
        CryptographicOperations.ZeroMemory(buffer);
    }
}
