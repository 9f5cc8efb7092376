namespace Encryption.Custom.Tests.TestSupport;

/// <summary>Which data encryption key implementation a test class runs with.</summary>
public enum TestKeyKind
{
    /// <summary><see cref="ReferenceDataEncryptionKey"/>: the plain BCL oracle.</summary>
    Reference,

    /// <summary>The library's own key (<see cref="Keys.DataEncryptionKey.Create(byte[], string)"/>): protected memory, native AEAD.</summary>
    Protected,
}
