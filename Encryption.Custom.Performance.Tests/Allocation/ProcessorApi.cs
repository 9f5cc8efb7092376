namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>Which overloads of an <see cref="Encryption.Custom.Processing.EncryptionProcessor"/> an allocation row went through.</summary>
public enum ProcessorApi
{
    /// <summary><c>Encrypt</c>/<c>Decrypt</c> from a span into an <see cref="System.Buffers.IBufferWriter{T}"/> (synchronous).</summary>
    BufferWriter = 0,

    /// <summary><c>EncryptAsync</c>/<c>DecryptAsync</c> from a <see cref="System.IO.Stream"/> into a <see cref="System.IO.Stream"/>.</summary>
    Stream = 1,
}
