<#
.SYNOPSIS
  Collects the Windows build and update facts of this host as one CSV row for Vulnintel API v2
  (POST /api/v2/assets/correlate-csv, part "hosts"; field list: interface spec section 2.6).

.DESCRIPTION
  Reads only: HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion (ProductName, EditionID, DisplayVersion or
  ReleaseId, CurrentMajor/MinorVersionNumber, CurrentBuildNumber, UBR, InstallationType), the processor
  architecture, and the installed update list (Get-HotFix). It never reads or writes identifying data: no host
  name, domain, IP or MAC address, user name, serial number, licence key or install path. The asset_id is a
  salted SHA-256 of the machine's MachineGuid: stable for this host, meaningless without your salt.
  Keep the salt secret and use the same salt on every host of your organization.

.PARAMETER Salt
  Your organization's secret salt (any text of 16 characters or more). Required.

.PARAMETER OutFile
  CSV file to append the row to (the header is written when the file is new). Default: print to the console.

.PARAMETER EsuEnrolled
  yes or no when the host is enrolled (or not) in Extended Security Updates; empty when unknown.

.EXAMPLE
  powershell -ExecutionPolicy Bypass -File collect-windows-host.ps1 -Salt $env:VI_SALT -OutFile \\share\hosts.csv
#>
[CmdletBinding()]
param(
  [Parameter(Mandatory = $true)][ValidateLength(16, 4096)][string]$Salt,
  [string]$OutFile = '',
  [ValidateSet('', 'yes', 'no')][string]$EsuEnrolled = ''
)
Set-StrictMode -Version 2
$ErrorActionPreference = 'Stop'

# The service's field list, in order (spec section 2.6). A test in the repository compares this line with the service.
$Columns = @('asset_id', 'os_product', 'edition_id', 'display_version', 'os_build', 'architecture', 'installation_type', 'installed_kbs', 'kb_source', 'esu_enrolled', 'collected_at')

function Get-RegValue([string]$Path, [string]$Name) {
  $item = Get-ItemProperty -Path $Path -Name $Name -ErrorAction SilentlyContinue
  if ($null -eq $item) { return '' }
  return [string]$item.$Name
}

$cv = 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'

# asset_id: salted hash of MachineGuid (never the host name).
$guid = Get-RegValue 'HKLM:\SOFTWARE\Microsoft\Cryptography' 'MachineGuid'
if ($guid -eq '') { throw 'MachineGuid not readable; cannot derive a stable asset_id' }
$sha = [System.Security.Cryptography.SHA256]::Create()
$bytes = $sha.ComputeHash([System.Text.Encoding]::UTF8.GetBytes("$Salt|$guid"))
$assetId = (($bytes | ForEach-Object { $_.ToString('x2') }) -join '').Substring(0, 32)

# Windows 11 still reports "Windows 10" in ProductName: the service tells them apart by build (22000 and up).
$productName = Get-RegValue $cv 'ProductName'
$editionId = Get-RegValue $cv 'EditionID'
$displayVersion = Get-RegValue $cv 'DisplayVersion'
if ($displayVersion -eq '') { $displayVersion = Get-RegValue $cv 'ReleaseId' }

# CurrentVersion is frozen at 6.3 on Windows 10/11: use the major/minor numbers when present.
$major = Get-RegValue $cv 'CurrentMajorVersionNumber'
$minor = Get-RegValue $cv 'CurrentMinorVersionNumber'
if ($major -eq '') {
  $parts = (Get-RegValue $cv 'CurrentVersion').Split('.')
  $major = $parts[0]; $minor = $parts[1]
}
$build = Get-RegValue $cv 'CurrentBuildNumber'
if ($build -eq '') { $build = Get-RegValue $cv 'CurrentBuild' }
$ubr = Get-RegValue $cv 'UBR'
# No UBR (Windows 7 / Server 2008 R2): a three-part build is sent, and the service answers needs_revision.
$osBuild = if ($ubr -ne '') { "$major.$minor.$build.$ubr" } else { "$major.$minor.$build" }

$arch = switch ($env:PROCESSOR_ARCHITECTURE) {
  'AMD64' { 'x64' }
  'ARM64' { 'arm64' }
  'x86' { if ($env:PROCESSOR_ARCHITEW6432 -eq 'AMD64') { 'x64' } elseif ($env:PROCESSOR_ARCHITEW6432 -eq 'ARM64') { 'arm64' } else { 'x86' } }
  default { '' }
}
$installationType = Get-RegValue $cv 'InstallationType'
if ($installationType -notin @('Server', 'Server Core', 'Client')) { $installationType = '' }

# Installed updates: KB numbers only (no descriptions, installers or paths).
$kbs = @(Get-HotFix -ErrorAction SilentlyContinue | ForEach-Object { $_.HotFixID } | Where-Object { $_ -match '^KB\d+$' } | Sort-Object -Unique)
$kbSource = 'Get-HotFix'

$row = [ordered]@{
  asset_id          = $assetId
  os_product        = $productName
  edition_id        = $editionId
  display_version   = $displayVersion
  os_build          = $osBuild
  architecture      = $arch
  installation_type = $installationType
  installed_kbs     = ($kbs -join ';')
  kb_source         = $kbSource
  esu_enrolled      = $EsuEnrolled
  collected_at      = (Get-Date).ToUniversalTime().ToString('yyyy-MM-ddTHH:mm:ssZ')
}

function ConvertTo-CsvCell([string]$v) {
  if ($v -match '[",\r\n]') { return '"' + $v.Replace('"', '""') + '"' }
  return $v
}
$header = ($Columns -join ',')
$line = (($Columns | ForEach-Object { ConvertTo-CsvCell ([string]$row[$_]) }) -join ',')

if ($OutFile -eq '') {
  Write-Output $header
  Write-Output $line
} else {
  if (-not (Test-Path -LiteralPath $OutFile)) { Set-Content -LiteralPath $OutFile -Value $header -Encoding UTF8 }
  Add-Content -LiteralPath $OutFile -Value $line -Encoding UTF8
}
