import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Divider from '@mui/material/Divider';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import WorkspacePremiumOutlinedIcon from '@mui/icons-material/WorkspacePremiumOutlined';
import type { TAccountDetails } from '@persona/contract';
import { formatDateTime } from '../../../lib/format-date';
import { planName } from '../lib/plan-rules';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '148px 1fr', md: '1fr' }, gap: { xs: 0.25, sm: 2, md: 0.25 }, py: 1.25 }}>
      <Typography component="dt" variant="body2" color="text.secondary" sx={{ fontWeight: 600 }}>
        {label}
      </Typography>
      <Typography component="dd" sx={{ m: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </Box>
  );
}

export interface AccountDetailsPanelProps {
  account: TAccountDetails;
  onChangeSubscription: () => void;
}

/** The left panel 'Account Details' (spec section 2, Account page). */
export function AccountDetailsPanel({ account, onChangeSubscription }: AccountDetailsPanelProps) {
  const plan = account.licenses.webgl.subscriptionType;
  const isActive = account.Status.toUpperCase() === 'ACTIVE';
  return (
    <Paper variant="outlined" component="section" aria-labelledby="account-details-title" sx={{ p: { xs: 2, sm: 3 } }}>
      <Typography id="account-details-title" variant="h4" component="h2" sx={{ mb: 1 }}>
        Account Details
      </Typography>
      <Box component="dl" sx={{ m: 0, '& > div + div': { borderTop: 1, borderColor: 'divider' } }}>
        <Field label="Customer ID">{account.Id}</Field>
        <Field label="Name">{account.Name || '—'}</Field>
        <Field label="Email">{account.Email}</Field>
        <Field label="Status">
          <Chip size="small" label={account.Status} color={isActive ? 'success' : 'default'} variant={isActive ? 'filled' : 'outlined'} />
        </Field>
        <Field label="Created">{formatDateTime(account['Create Date'])}</Field>
        <Field label="Subscription plan">
          <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
            <Box component="strong" sx={{ letterSpacing: '0.02em' }}>
              {planName(plan)}
            </Box>
            {account.requestedSubType !== null ? (
              <Chip size="small" color="warning" label={`REQUESTED: ${planName(account.requestedSubType)}`} />
            ) : null}
          </Box>
        </Field>
        <Field label="Subscribed since">{formatDateTime(account['Subscribed Since'])}</Field>
      </Box>
      <Divider sx={{ my: 2 }} />
      <Button fullWidth variant="contained" startIcon={<WorkspacePremiumOutlinedIcon />} onClick={onChangeSubscription}>
        Change Subscription
      </Button>
    </Paper>
  );
}
