namespace Encryption.Custom.Keys.Memory;

/// <summary>Holds one reference on a <see cref="ProtectedKeyMaterial"/> until disposed (exactly once).</summary>
internal readonly struct ProtectedKeyMaterialPin : IDisposable
{
    private readonly ProtectedKeyMaterial? _material;

    internal ProtectedKeyMaterialPin(ProtectedKeyMaterial material)
    {
        _material = material;
    }

    /// <summary>The pinned material (null for a default pin).</summary>
    public ProtectedKeyMaterial? Material => _material;

    /// <summary>Releases the reference; the material's memory goes back if the owner has already disposed.</summary>
    public void Dispose() => _material?.ReleaseReference();
}
